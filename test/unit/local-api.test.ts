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

  it('keeps a connection open after answering 413 to an upload it then read to the end, and answers the next request on it', async () => {
    // The 413 promises keep-alive, so a client may send its next request on the same connection
    // as soon as its upload is out: closing it then would fail that request.
    const socket = connect(Number(new URL(api.url).port), '127.0.0.1');
    socket.on('error', () => undefined);
    let received = '';
    let closed = false;
    let onChange = () => undefined as void;
    socket.on('data', (chunk) => ((received += chunk), onChange()));
    socket.on('close', () => ((closed = true), onChange()));
    /** Resolves once what came back matches, or the connection is closed. */
    const receivedMatching = (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        onChange = () => void ((closed || pattern.test(received)) && resolve());
        onChange();
      });

    const size = 11 * 1024 * 1024;
    socket.write(`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: ${size}\r\n\r\n`);
    await new Promise((resolve) => socket.write(Buffer.alloc(size, 32), resolve));
    await receivedMatching(/Request Entity Too Large/);
    // Time for the server to read the rest of the upload (and, were it to hang up then, to do so).
    await new Promise((resolve) => setTimeout(resolve, 200));
    socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}');
    // Both answers are chunked: the 200's ends with its `ok` chunk and the last, empty one.
    await receivedMatching(/\r\nok\r\n0\r\n\r\n$/);
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 413 [^]*Request Entity Too Large[^]*HTTP\/1\.1 200 [^]*\r\nok\r\n0\r\n\r\n$/);
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

describe('the access log line', () => {
  it('names the route and never the query string or a path parameter, where an email or a phone could be', async () => {
    const lines: string[] = [];
    const logged = await startLocalApi({
      host: '127.0.0.1',
      port: 0,
      routes: [...(routes as Array<Record<string, unknown>>), { id: 'view', method: 'GET', path: '/views/{id}', handler: 'unused', scope: null }] as never,
      handlers: new Map([
        ['echo', async () => ({ statusCode: 200, body: 'ok' })],
        ['view', async () => ({ statusCode: 200, body: 'ok' })],
      ]),
      onRequest: (line) => lines.push(line),
    });
    try {
      const query = '?email=jane.doe%40example.com&phone=%2B14155550100';
      const statuses = [
        (await fetch(`${logged.url}/echo${query}`, { method: 'POST', body: '{}' })).status,
        (await fetch(`${logged.url}/views/jane.doe@example.com${query}`)).status,
        (await fetch(`${logged.url}/views/jane.doe@example.com`, { method: 'DELETE' })).status,
        (await fetch(`${logged.url}/nowhere${query}`)).status,
      ];
      expect(statuses).toEqual([200, 200, 405, 404]);
      expect(lines).toHaveLength(4);
      expect(lines[0]).toMatch(/^POST \/echo 200 \d+\.\dms$/);
      expect(lines[1]).toMatch(/^GET \/views\/\{id\} 200 \d+\.\dms$/);
      expect(lines[2]).toMatch(/^DELETE \/views\/\{id\} 405 \d+\.\dms$/);
      expect(lines[3]).toMatch(/^GET \/nowhere 404 \d+\.\dms$/);
      for (const line of lines) expect(line).not.toMatch(/jane|example|4155550100/);
    } finally {
      await logged.close();
    }
  });
});
