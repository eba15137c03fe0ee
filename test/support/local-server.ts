import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface RunningServer {
  url: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  output(): string;
  stop(): Promise<number | null>;
}

/**
 * Starts `npm start`'s program as its own process, exactly as a user would, on free ports with
 * its own data directory, and resolves once it prints the ready line.
 */
export async function startLocalServer(options: { dataDir?: string } = {}): Promise<RunningServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'e2e-data-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    DYNAMODB_PORT: String(await freePort()),
    DATA_DIR: dataDir,
    LOG_REQUESTS: '0',
  };
  // The suite's own endpoints and table must not leak into the server or the CLIs it spawns.
  for (const name of ['AWS_ENDPOINT_URL_DYNAMODB', 'AWS_ENDPOINT_URL_EVENTBRIDGE', 'TABLE_NAME', 'EVENT_BUS_NAME']) delete env[name];
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bin/local-server.ts'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const ready = `listening on http://127.0.0.1:${port}`;
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes(ready)) {
        clearInterval(timer);
        resolve();
      } else if (child.exitCode !== null) {
        clearInterval(timer);
        reject(new Error(`local server exited early:\n${output}`));
      }
    }, 50);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    dataDir,
    env,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

/** Runs one of the ops CLIs in bin/ against the server's store, as an operator would, whatever its exit code. */
export function runCli(server: RunningServer, script: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { env: server.env }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Runs the keys CLI against the server's store, as an operator would. */
export async function keysCli(server: RunningServer, ...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bin/keys.ts', ...args], { env: server.env });
  return stdout;
}

export async function mintKey(server: RunningServer, pixelId: string, scopes: string, ...extra: string[]) {
  const stdout = await keysCli(server, 'create', '--pixel', pixelId, '--scopes', scopes, '--json', ...extra);
  return JSON.parse(stdout.trim()) as { apiKey: string; apiKeyPk: string; pixelId: string; scopes: string[] };
}

export function eventLines(server: RunningServer): Array<Record<string, any>> {
  try {
    return readFileSync(join(server.dataDir, 'events.ndjson'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
  } catch {
    return [];
  }
}

export async function call(server: RunningServer, method: string, path: string, options: { headers?: Record<string, string>; body?: unknown } = {}) {
  const response = await fetch(server.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}
