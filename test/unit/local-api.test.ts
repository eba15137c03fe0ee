import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalApi, type LocalApi } from '../../lib/local/local-api';

let api: LocalApi;
const routes = [{ id: 'echo', method: 'POST', path: '/echo', handler: 'unused', scope: null }] as never;
beforeAll(async () => {
  const handlers = new Map([['echo', async () => ({ statusCode: 200, body: 'ok' })]]);
  api = await startLocalApi({ host: '127.0.0.1', port: 0, routes, handlers, requestTimeoutMs: 500 });
});
afterAll(async () => {
  await api.close();
});

describe('the local front door and slow clients', () => {
  it('gives up on an upload that stalls past the request timeout, answering 408 with the connection closed, and keeps serving', async () => {
    const { port } = new URL(api.url);
    const answer = await new Promise<string>((resolve) => {
      let received = '';
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{'));
      socket.on('data', (chunk) => (received += chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(received));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/\r\nx-request-id: \S+\r\n/);

    const response = await fetch(`${api.url}/echo`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers a request it cannot parse with 400 and a request id', async () => {
    const { port } = new URL(api.url);
    const answer = await new Promise<string>((resolve) => {
      let received = '';
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      socket.on('data', (chunk) => (received += chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(received));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toMatch(/\r\nx-request-id: \S+\r\n/);
  });

  it('closes promptly even while a client is still uploading', async () => {
    const other = await startLocalApi({ host: '127.0.0.1', port: 0, routes, handlers: new Map(), requestTimeoutMs: 60_000 });
    const socket = connect(Number(new URL(other.url).port), '127.0.0.1', () => socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{'));
    socket.on('error', () => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = await Promise.race([other.close().then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open'), 10_000))]);
    expect(closed).toBe('closed');
  });
});
