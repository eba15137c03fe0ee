import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalApi, type LocalApi } from '../../lib/local/local-api';

/*
 * Clients that hold connections without using them, against the local front door over real TCP.
 * The whole of 127.0.0.0/8 is loopback, so connections can come from several client addresses.
 */

const routes = [{ id: 'ping', method: 'GET', path: '/ping', handler: 'unused', scope: null }] as never;
const handlers = new Map([['ping', async () => ({ statusCode: 200, body: 'pong' })]]);

let api: LocalApi | undefined;
const opened: Socket[] = [];
afterEach(async () => {
  for (const socket of opened.splice(0)) socket.destroy();
  await api?.close();
  api = undefined;
});

/** The front door, with a headers timeout long enough that no held connection is freed by it during a test. */
async function start(headersTimeoutMs = 60_000, minIdleMs?: number): Promise<{ url: string; port: number }> {
  api = await startLocalApi({ host: '127.0.0.1', port: 0, routes, handlers, headersTimeoutMs, ...(minIdleMs === undefined ? {} : { connections: { minIdleMs } }) });
  return { url: api.url, port: Number(new URL(api.url).port) };
}

interface Held {
  socket: Socket;
  closed: boolean;
}

/** `count` connections from `localAddress` that never send a byte, opened a hundred at a time; each notes when it is closed. */
async function holdSilent(port: number, count: number, localAddress: string): Promise<Held[]> {
  const held: Held[] = [];
  while (held.length < count) {
    const batch = Array.from({ length: Math.min(100, count - held.length) }, () => {
      const socket = connect({ port, host: '127.0.0.1', localAddress });
      opened.push(socket);
      const entry: Held = { socket, closed: false };
      socket.on('error', () => undefined);
      socket.on('close', () => (entry.closed = true));
      // Reading, so that a close by the server is seen.
      socket.resume();
      return new Promise<Held>((resolve) => socket.once('connect', () => resolve(entry)));
    });
    held.push(...(await Promise.all(batch)));
  }
  return held;
}

/** GET /ping on a fresh connection from `localAddress`; what came back, or why nothing did within 3 s. */
function ping(url: string, localAddress: string): Promise<{ status?: number; body?: string; error?: string }> {
  return new Promise((resolve) => {
    const sent = request(`${url}/ping`, { localAddress, agent: false, timeout: 3_000 }, (response) => {
      let body = '';
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, body }));
    });
    sent.on('timeout', () => sent.destroy(new Error('no answer within 3 s')));
    sent.on('error', (error) => resolve({ error: error.message }));
    sent.end();
  });
}

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

const closedCount = (held: Held[]) => held.filter((entry) => entry.closed).length;

describe('connections held without being used', () => {
  it('serves a client at once while 1,000 idle connections from other addresses are held, closing only the longest idle one to make room', async () => {
    const { url, port } = await start();
    const held: Held[] = [];
    for (const address of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']) held.push(...(await holdSilent(port, 250, address)));
    expect(closedCount(held)).toBe(0);
    // Held for a while: long enough to be closed for room.
    await new Promise((resolve) => setTimeout(resolve, 1_100));

    expect(await ping(url, '127.0.0.1')).toEqual({ status: 200, body: 'pong' });
    await until(() => closedCount(held) > 0);
    expect(closedCount(held)).toBe(1);
    expect(held.findIndex((entry) => entry.closed)).toBeLessThan(100);
  });

  it('serves a client at once from the very address holding 1,000 idle connections', async () => {
    const { url, port } = await start();
    // Past 250 from one address, each new one closes that address's longest idle, once idle a second.
    const held = await holdSilent(port, 1_000, '127.0.0.1');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const closedBefore = closedCount(held);

    expect(await ping(url, '127.0.0.1')).toEqual({ status: 200, body: 'pong' });
    await until(() => closedCount(held) > closedBefore);
    expect(closedCount(held)).toBe(closedBefore + 1);
  });

  it('answers 503 with Retry-After, not a reset, on a connection past the bounds while none has been idle long enough to make room', async () => {
    // No connection is idle long enough to be closed for room during this test.
    const { url, port } = await start(60_000, 60_000);
    await holdSilent(port, 1_000, '127.0.0.2');
    const surplus = await new Promise<{ status?: number; retryAfter?: string; connection?: string }>((resolve) => {
      const sent = request(`${url}/ping`, { localAddress: '127.0.0.2', agent: false }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode, retryAfter: response.headers['retry-after'], connection: response.headers.connection }));
      });
      sent.on('error', () => resolve({}));
      sent.end();
    });
    expect(surplus).toEqual({ status: 503, retryAfter: '1', connection: 'close' });
  });

  it('closes a connection that sends nothing when the headers timeout passes, with a 408, and drops it even if its client never closes its side', async () => {
    const { port } = await start(300);
    const polite = await new Promise<string>((resolve) => {
      let received = '';
      const socket = connect(port, '127.0.0.1');
      opened.push(socket);
      socket.on('data', (chunk) => (received += chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(received));
    });
    expect(polite).toMatch(/^HTTP\/1\.1 408 /);

    // A client that keeps its side open, as one holding connections would: once the server has
    // dropped the connection, what it sends next is answered with a reset.
    const stubborn = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    opened.push(stubborn);
    let ended = false;
    let reset = false;
    stubborn.on('end', () => (ended = true));
    stubborn.on('error', () => (reset = true));
    stubborn.resume();
    await until(() => ended);
    expect(ended).toBe(true);
    const prober = setInterval(() => stubborn.writable && stubborn.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\n'), 200);
    try {
      await until(() => reset, 5_000);
    } finally {
      clearInterval(prober);
    }
    expect(reset).toBe(true);
  });
});
