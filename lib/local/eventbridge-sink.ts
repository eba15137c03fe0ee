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
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const reply = (status: number, body: unknown) => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify(body));
      };
      if (request.headers['x-amz-target'] !== 'AWSEvents.PutEvents') {
        return reply(400, { __type: 'UnknownOperationException', message: 'Only PutEvents is emulated locally' });
      }
      let entries: PutEventsEntry[];
      try {
        entries = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Entries?: PutEventsEntry[] }).Entries ?? [];
      } catch {
        return reply(400, { __type: 'SerializationException', message: 'Body is not JSON' });
      }
      const results = entries.map((entry) => {
        const id = randomUUID();
        const time = entry.Time === undefined ? new Date() : new Date(typeof entry.Time === 'number' ? entry.Time * 1000 : entry.Time);
        const line = {
          version: '0',
          id,
          'detail-type': entry.DetailType,
          source: entry.Source,
          account: '000000000000',
          time: time.toISOString().replace(/\.\d{3}Z$/, 'Z'),
          region: options.region,
          resources: entry.Resources ?? [],
          detail: JSON.parse(entry.Detail ?? '{}') as unknown,
        };
        appendFileSync(options.file, `${JSON.stringify(line)}\n`);
        return { EventId: id };
      });
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
