import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, sep } from 'node:path';

/** A port nobody listens on right now, on loopback. */
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

export interface SpawnedServer {
  url: string;
  dataDir: string;
  /** The environment it runs with: the CLIs given it find the same store. */
  env: NodeJS.ProcessEnv;
  /** From launch to the ready line. */
  readyAfterMs: number;
  /** Everything it printed so far. */
  output(): string;
  /** The process started: the server itself, or npm when started through `npm start`. */
  pid: number;
  /** A signal (SIGTERM unless given), and the exit code once it has shut down. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** The exit code, once the process has exited however it was stopped. */
  exited(): Promise<number | null>;
}

/**
 * Starts `npm start`'s program as its own process, as a user would, on free ports with its own
 * data directory (a fresh one unless given), and resolves once it prints its ready line. For the
 * end-to-end tests and the benchmark; the caller's own endpoints and table never leak into it.
 */
export async function spawnLocalServer(
  options: {
    projectRoot?: string;
    dataDir?: string;
    /** Run it as a user does, `npm start`, in a process group of its own, instead of the program itself. */
    viaNpm?: boolean;
  } = {},
): Promise<SpawnedServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'local-server-'));
  const env = await localServerEnv(dataDir);
  const port = Number(env.PORT);

  const started = performance.now();
  // A user's shell has no node_modules/.bin on its PATH: npm is launched by the machine's own Node.
  const userPath = (env.PATH ?? '').split(delimiter).filter((entry) => !entry.includes(`node_modules${sep}.bin`)).join(delimiter);
  const child: ChildProcess = options.viaNpm
    ? spawn('npm', ['start'], { cwd: options.projectRoot, env: { ...env, PATH: userPath }, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    : spawn(process.execPath, ['--import', 'tsx', 'bin/local-server.ts'], { cwd: options.projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk));
  // A process ended by a signal keeps exitCode null and has its signalCode instead: either means it is gone.
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  const exited = () =>
    new Promise<number | null>((resolve) => {
      if (gone()) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
    });
  const stop = (signal: NodeJS.Signals = 'SIGTERM') =>
    new Promise<number | null>((resolve) => {
      if (gone()) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
      child.kill(signal);
    });
  const ready = `listening on http://127.0.0.1:${port}`;
  const readyAfterMs = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk;
      if (output.includes(ready)) resolve(performance.now() - started);
    });
    child.once('exit', (code) => reject(new Error(`local server exited (${code}) before it was ready:\n${output.slice(-2000)}`)));
  });
  return { url: `http://127.0.0.1:${port}`, dataDir, env, pid: child.pid!, readyAfterMs, output: () => output, stop, exited };
}

/**
 * The environment a spawned local server runs with: free ports, the given data directory, no
 * access log, and none of the caller's own endpoints or table names.
 */
export async function localServerEnv(dataDir: string): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(await freePort()), DYNAMODB_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_REQUESTS: '0' };
  for (const name of ['AWS_ENDPOINT_URL_DYNAMODB', 'AWS_ENDPOINT_URL_EVENTBRIDGE', 'TABLE_NAME', 'EVENT_BUS_NAME', 'ANALYTICS_DIR', 'ANALYTICS_BUCKET']) delete env[name];
  return env;
}
