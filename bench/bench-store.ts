import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startEmbeddedDynamo } from '../lib/local/dynamodb';

/**
 * Where a benchmark section's in-memory dynalite runs:
 * - `in-process`: in the benchmark's own process, sharing its event loop (what the small latency
 *   cases use, and what the integration tests use);
 * - `child-process`: in a Node process of its own, so the store and the handlers each get a core
 *   of a 2-core machine.
 */
export type StoreMode = 'in-process' | 'child-process';

export interface BenchStore {
  mode: StoreMode;
  endpoint: string;
  /** Peak resident memory of the store's own process, when it has one and the OS says (Linux). */
  peakRssBytes(): number | undefined;
  /** CPU seconds (user + system) the store's own process has used so far, when it has one (Linux). */
  cpuSeconds(): number | undefined;
  close(): Promise<void>;
}

export async function startBenchStore(mode: StoreMode): Promise<BenchStore> {
  if (mode === 'in-process') {
    const dynamo = await startEmbeddedDynamo();
    return { mode, endpoint: dynamo.endpoint, peakRssBytes: () => undefined, cpuSeconds: () => undefined, close: () => dynamo.close() };
  }
  return startDynaliteProcess();
}

const READY_TIMEOUT_MS = 15_000;

/**
 * The store process, `bench/store-process.ts`: the local server's dynalite, in memory, in a
 * process of its own. It runs the same fixes of dynalite as `npm start` (iterators closed, table
 * descriptions kept: lib/local/dynamodb.ts), so the store's CPU is what the local runtime spends.
 */
async function startDynaliteProcess(): Promise<BenchStore> {
  const projectRoot = fileURLToPath(new URL('..', import.meta.url));
  // BENCH_STORE_CPU_PROF=<dir>: the store writes a V8 CPU profile there (node --cpu-prof), to see what its time goes to.
  const profile = process.env.BENCH_STORE_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_STORE_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'bench/store-process.ts'], { cwd: projectRoot, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await waitForPort(child);
  let peak: number | undefined;
  return {
    mode: 'child-process',
    endpoint: `http://127.0.0.1:${port}`,
    peakRssBytes: () => (peak = peakRssOf(child.pid) ?? peak),
    cpuSeconds: () => cpuSecondsOf(child.pid),
    close: async () => {
      peak = peakRssOf(child.pid) ?? peak;
      child.stdin?.end();
      await exited;
    },
  };
}

function waitForPort(child: ChildProcess): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let output = '';
    const done = (error: Error | undefined, port?: number) => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.stderr?.off('data', onStderr);
      child.off('error', onError);
      child.off('exit', onExit);
      // Keep draining the pipes, so a chatty child can never block on a full one.
      child.stdout?.resume();
      child.stderr?.resume();
      if (error) {
        child.kill('SIGTERM');
        reject(error);
      } else resolve(port as number);
    };
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (\d+)/.exec(output);
      if (match) done(undefined, Number(match[1]));
    };
    const onStderr = (chunk: Buffer) => (output += chunk.toString('utf8'));
    const onError = (error: Error) => done(error);
    const onExit = (code: number | null, signal: string | null) => done(new Error(`the store process exited (${signal ?? code}) before it listened: ${output}`));
    const timer = setTimeout(() => done(new Error(`the store process did not listen within ${READY_TIMEOUT_MS} ms: ${output}`)), READY_TIMEOUT_MS);
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onStderr);
    child.once('error', onError);
    child.once('exit', onExit);
  });
}

/** VmHWM of a live process (Linux); undefined elsewhere or once it is gone. */
export function peakRssOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** utime + stime of a live process in seconds (Linux, at the usual 100 clock ticks a second); undefined elsewhere. */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}
