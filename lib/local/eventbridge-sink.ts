import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname } from 'node:path';
import { randomUUID } from 'node:crypto';

interface PutEventsEntry {
  Source?: string;
  DetailType?: string;
  Detail?: string;
  EventBusName?: string;
  Resources?: string[];
  Time?: number | string;
}

export interface EventBridgeSink {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * A stand-in for EventBridge that the real SDK client talks to (AWS JSON 1.1, `PutEvents`). Each
 * entry becomes one line of `file` in the envelope a rule target receives, appended before the
 * call is answered, so an acknowledged event is never lost.
 */
export async function startEventBridgeSink(options: { file: string; region: string; port?: number }): Promise<EventBridgeSink> {
  mkdirSync(dirname(options.file), { recursive: true });
  const server: Server = createServer((request, response) => {
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(JSON.stringify(body));
    };
    // A client that goes away mid-request only loses its own request.
    request.on('error', () => response.destroy());
    response.on('error', () => undefined);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.headers['x-amz-target'] !== 'AWSEvents.PutEvents') {
        return reply(400, { __type: 'UnknownOperationException', message: 'Only PutEvents is emulated locally' });
      }
      let lines: Array<{ id: string } & Record<string, unknown>>;
      try {
        const entries = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Entries?: PutEventsEntry[] }).Entries ?? [];
        lines = entries.map((entry) => envelope(entry, options.region));
      } catch (error) {
        return reply(400, { __type: 'ValidationException', message: (error as Error).message });
      }
      // Built in full and appended in one write, so a bad entry never leaves half a batch behind.
      try {
        appendFileSync(options.file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      } catch (error) {
        return reply(500, { __type: 'InternalException', message: (error as Error).message });
      }
      const results = lines.map(({ id }) => ({ EventId: id }));
      reply(200, { FailedEntryCount: 0, Entries: results });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The envelope a rule target receives for one `PutEvents` entry. */
function envelope(entry: PutEventsEntry, region: string): { id: string } & Record<string, unknown> {
  const time = entry.Time === undefined ? new Date() : new Date(typeof entry.Time === 'number' ? entry.Time * 1000 : entry.Time);
  if (Number.isNaN(time.getTime())) throw new Error(`Time '${String(entry.Time)}' is not a time`);
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': entry.DetailType,
    source: entry.Source,
    account: '000000000000',
    time: time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: entry.Resources ?? [],
    detail: JSON.parse(entry.Detail ?? '{}') as unknown,
  };
}
