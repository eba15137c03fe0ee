import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, localServerEnv, spawnLocalServer } from '../../lib/local/spawned-server';
import { call, keysCli, startLocalServer, type RunningServer } from '../support/local-server';

let server: RunningServer;
beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(async () => {
  await server?.stop();
});

const ORDER_SETTINGS = '/accounts/api/account/settings/order';

/** Sends raw bytes on a fresh connection and resolves with what came back once the server closes it (or after `waitMs`). */
function rawExchange(url: string, bytes: string | Buffer, options: { thenDestroyAfterMs?: number; waitMs?: number } = {}): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve) => {
    let received = '';
    const socket = connect(Number(port), '127.0.0.1', () => {
      socket.write(bytes);
      if (options.thenDestroyAfterMs !== undefined) setTimeout(() => socket.destroy(), options.thenDestroyAfterMs);
    });
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
    if (options.waitMs !== undefined) setTimeout(() => socket.destroy(), options.waitMs);
  });
}

async function stillServes(target: RunningServer): Promise<void> {
  const response = await call(target, 'GET', ORDER_SETTINGS);
  expect(response.status).toBe(401);
}

describe('uploads the client aborts, stalls or floods', () => {
  it('keeps serving after clients abort their uploads, to the API and to its DynamoDB port', async () => {
    const partial = `PUT ${ORDER_SETTINGS} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"countPendingOrders":`;
    await Promise.all(Array.from({ length: 5 }, () => rawExchange(server.url, partial, { thenDestroyAfterMs: 50 })));
    const dynamoUrl = `http://127.0.0.1:${server.env.DYNAMODB_PORT}`;
    const partialDynamo = `POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: DynamoDB_20120810.GetItem\r\nContent-Length: 5000\r\n\r\n{"TableName":`;
    await Promise.all(Array.from({ length: 5 }, () => rawExchange(dynamoUrl, partialDynamo, { thenDestroyAfterMs: 50 })));
    await stillServes(server);
    expect(server.output()).not.toMatch(/ECONNRESET|Unhandled|aborted/);
  });

  it('answers other requests while an upload trickles in', async () => {
    const { port } = new URL(server.url);
    const slow = connect(Number(port), '127.0.0.1');
    slow.on('error', () => undefined);
    slow.write(`PUT ${ORDER_SETTINGS} HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{`);
    const ticker = setInterval(() => slow.write(' '), 100);
    try {
      for (let i = 0; i < 3; i++) await stillServes(server);
    } finally {
      clearInterval(ticker);
      slow.destroy();
    }
    await stillServes(server);
  });

  it('answers 413 with a request id as soon as a body is known to exceed 10 MB, and keeps serving', async () => {
    const declared = await rawExchange(server.url, `PUT ${ORDER_SETTINGS} HTTP/1.1\r\nHost: x\r\nContent-Length: ${11 * 1024 * 1024}\r\n\r\n{`, {
      waitMs: 5_000,
    });
    expect(declared).toMatch(/^HTTP\/1\.1 413 /);
    expect(declared).toMatch(/\r\nx-request-id: \S+\r\n/i);

    // Chunked, so the size is only known as it arrives.
    let chunks = 0;
    const response = await fetch(server.url + ORDER_SETTINGS, {
      method: 'PUT',
      body: new ReadableStream({
        pull(controller) {
          if (++chunks > 11) return controller.close();
          controller.enqueue(new Uint8Array(1024 * 1024).fill(32));
        },
      }),
      duplex: 'half',
    } as RequestInit).catch((error: Error) => error);
    // The server answers before the upload ends and reads the rest; a client stack that gives up on a request answered early sees an error instead.
    if (!(response instanceof Error)) {
      expect(response.status).toBe(413);
      expect(response.headers.get('x-request-id')).toBeTruthy();
    }
    await stillServes(server);
  });
});

describe("the front door's own answers", () => {
  it.each([
    ['an unknown path', 'GET', '/nowhere', 404],
    ['a known path with another method', 'DELETE', ORDER_SETTINGS, 405],
  ])('%s: %s answer carries x-request-id', async (_, method, path, status) => {
    const response = await call(server, method, path);
    expect(response.status).toBe(status);
    expect(response.headers.get('x-request-id')).toMatch(/^\S{8,}$/);
  });
});

describe('starting and stopping', () => {
  it('a second server on the same data directory exits at once with one line, and the first keeps serving', async () => {
    const result = await runToExit({ ...(await localServerEnv(server.dataDir)) });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/is in use by another local server \(pid \d+/);
    await stillServes(server);
  });

  it('a taken PORT on a first start writes nothing and says which variable to change', async () => {
    const blocker = await listenOn(await freePort());
    try {
      const dataDir = join(mkdtempSync(join(tmpdir(), 'local-server-')), 'data');
      const env = { ...(await localServerEnv(dataDir)), PORT: String((blocker.address() as { port: number }).port) };
      const result = await runToExit(env);
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toMatch(/^Port \d+ \(the API\) is in use\. Set PORT to use another\.$/);
      expect(result.stdout).not.toMatch(/x-api-key/);
      expect(existsSync(dataDir)).toBe(false);
    } finally {
      blocker.close();
    }
  });

  it.each([
    ['SIGTERM', 'to npm'],
    ['SIGINT', 'to npm'],
    ['SIGINT', "to npm's whole process group, as Ctrl-C in a terminal sends it"],
  ] as const)('%s %s stops every process `npm start` started and frees both ports', async (signal, target) => {
    const started = await spawnLocalServer({ viaNpm: true });
    const group = processesInGroup(started.pid);
    expect(group.length).toBeGreaterThanOrEqual(2);
    process.kill(target === 'to npm' ? started.pid : -started.pid, signal);
    expect(await started.exited()).toBe(0);
    await waitFor(() => processesInGroup(started.pid).length === 0);
    expect(processesInGroup(started.pid)).toEqual([]);
    for (const port of [Number(started.env.PORT), Number(started.env.DYNAMODB_PORT)]) (await listenOn(port)).close();
    expect(readdirSync(started.dataDir)).not.toContain('server.lock');
    expect(started.output()).toMatch(new RegExp(`${signal}: shutting down`));
    // Whatever Node launched npm, the server runs on the Lambda runtime's major (lib/constructs/api-function.ts).
    expect(started.output()).toMatch(/; Node v24\.\d+\.\d+\n/);
  });

  it('starts again right after kill -9 of the server, on the same ports and data, even before the killed process is reaped', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'local-server-'));
    const env = await localServerEnv(dataDir);
    const ready = `listening on http://127.0.0.1:${env.PORT}`;
    // The server's parent becomes `sleep`, which never reaps it: once killed it stays a zombie, as
    // it does for as long as any parent is slow to reap it.
    const parent = spawn('sh', ['-c', `"${process.execPath}" --import tsx bin/local-server.ts & echo "server pid $!"; exec sleep 300`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let first = '';
    parent.stdout.on('data', (chunk: Buffer) => (first += chunk));
    let restarted: ReturnType<typeof spawn> | undefined;
    try {
      await waitFor(() => first.includes(ready), 90_000);
      const pid = Number(/^server pid (\d+)$/m.exec(first)?.[1]);
      process.kill(pid, 'SIGKILL');
      await waitFor(() => processState(pid) === 'Z');
      expect(processState(pid)).toBe('Z');

      restarted = spawn(process.execPath, ['--import', 'tsx', 'bin/local-server.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let second = '';
      restarted.stdout!.on('data', (chunk: Buffer) => (second += chunk));
      restarted.stderr!.on('data', (chunk: Buffer) => (second += chunk));
      let exited = false;
      restarted.once('exit', () => (exited = true));
      await waitFor(() => second.includes(ready) || exited, 90_000);
      expect(second).toContain(ready);
      expect(second).not.toMatch(/in use/);
      expect((await fetch(`http://127.0.0.1:${env.PORT}${ORDER_SETTINGS}`)).status).toBe(401);
    } finally {
      if (restarted && restarted.exitCode === null) {
        const stopped = new Promise((resolve) => restarted!.once('exit', resolve));
        restarted.kill('SIGTERM');
        await stopped;
      }
      parent.kill();
    }
  }, 240_000);

  it('completes a first start interrupted part-way on the next start, says so, and prints the one working demo key', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'local-server-'));
    const env = await localServerEnv(dataDir);
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local-server.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (String(chunk).includes('First start: creating')) resolve();
      });
    });
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));

    const restarted = await spawnLocalServer({ dataDir });
    try {
      expect(restarted.output()).toMatch(/The first start of this data directory did not finish; redoing it/);
      const demoKey = /x-api-key:\s+(upstack_\S+)/.exec(restarted.output())?.[1];
      const headers = { 'x-api-key': demoKey!, 'x-pixel-id': 'px_demo' };
      const listing = await call(restarted, 'POST', '/db-mgmt/api/query-ads', { headers, body: { pixelId: 'px_demo', limit: 100 } });
      expect(listing.status).toBe(200);
      expect(listing.body.pagination.total).toBe(60);
      const keys = JSON.parse(await keysCli(restarted, 'list', '--pixel', 'px_demo', '--json')) as Array<{ revokedAt?: string }>;
      expect(keys.filter((key) => !key.revokedAt)).toHaveLength(1);
    } finally {
      await restarted.stop();
    }
    // And the start after that is an ordinary one.
    const third = await spawnLocalServer({ dataDir });
    await third.stop();
    expect(third.output()).not.toMatch(/First start|x-api-key/);
  }, 120_000);
});

function runToExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'bin/local-server.ts'], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

function listenOn(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const listener = createServer();
    listener.once('error', reject);
    listener.listen(port, '127.0.0.1', () => resolve(listener));
  });
}

/** Live processes whose process group is `pgid` (npm start's, as spawned detached). */
function processesInGroup(pgid: number): string[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return fields[2] === String(pgid) && fields[0] !== 'Z' ? [pid] : [];
      } catch {
        return [];
      }
    });
}

/** The state letter of /proc/<pid>/stat (`Z` for a zombie), or undefined once the process is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
}
