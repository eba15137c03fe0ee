import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What to do to one DynamoDB call: `operation` is the API name (`PutItem`), `body` its JSON text. */
export type Fault = (call: { operation: string; body: string }) => { delayRequestMs?: number; delayResponseMs?: number } | undefined;

/**
 * A proxy in front of the test DynamoDB that can slow any call down, before it reaches the store
 * (the call has not happened yet) or after the store answered (the write committed, its answer is
 * late or lost when the client gives up). The SDK under test talks to it as to DynamoDB.
 */
export async function startFaultInjectingStore(target: string) {
  let fault: Fault = () => undefined;
  const upstream = new URL(target);
  const server = createServer(async (incoming, outgoing) => {
    const body = await readAll(incoming);
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
    const plan = fault({ operation, body: body.toString('utf8') }) ?? {};
    await sleep(plan.delayRequestMs ?? 0);
    if (outgoing.destroyed || incoming.socket.destroyed) return;
    const forwarded = httpRequest(
      { host: upstream.hostname, port: upstream.port, path: incoming.url, method: incoming.method, headers: incoming.headers },
      async (answer) => {
        const answerBody = await readAll(answer);
        await sleep(plan.delayResponseMs ?? 0);
        if (outgoing.destroyed || incoming.socket.destroyed) return;
        outgoing.writeHead(answer.statusCode ?? 500, answer.headers);
        outgoing.end(answerBody);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    forwarded.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    inject(next: Fault) {
      fault = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
