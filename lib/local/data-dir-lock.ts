import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { StartupError, type Service } from './lifecycle';

/** Who holds a data directory: written into its lock file. */
export interface LockHolder {
  pid: number;
  /** What holds it: `npm start`, or an ops CLI that opened the store directly. */
  holder: 'server' | 'cli';
  /** The holder's DynamoDB port, when it serves one. */
  dynamoPort?: number;
  port?: number;
}

const LOCK_FILE = 'server.lock';
/** How long a start waits for a previous holder that is exiting (killed a moment ago) to be gone. */
const EXIT_WAIT_MS = 5_000;

/**
 * One process at a time opens a data directory's store: a second one would find LevelDB locked
 * and fail in the middle of its start. The lock is a file created exclusively, holding the
 * holder's pid; a lock whose process no longer runs (killed with -9, say, even while it waits
 * as a zombie for its parent) is stale and taken over.
 */
export function lockDataDir(dataDir: string, holder: Omit<LockHolder, 'pid'>): Service {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, LOCK_FILE);
  const content = JSON.stringify({ pid: process.pid, ...holder } satisfies LockHolder);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, content);
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const current = lockHolder(dataDir);
      if (current) throw new StartupError(describeHolder(dataDir, current));
      // Stale: its process is gone. Remove it and try once more; a racing starter may still win.
      rmSync(file, { force: true });
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    // Only our own lock: never one a later process took over.
    if (lockHolder(dataDir)?.pid === process.pid) rmSync(file, { force: true });
  };
  // Also on an abrupt exit (process.exit from an error path); a crash leaves a stale lock instead.
  process.once('exit', release);
  return { close: async () => release() };
}

/** The process holding the data directory, if any: one running, or exiting but not gone yet. */
export function lockHolder(dataDir: string): LockHolder | undefined {
  const holder = recordedHolder(dataDir);
  return holder && processState(holder.pid) !== 'gone' ? holder : undefined;
}

/**
 * Waits, a few seconds at most, while the data directory's holder is exiting: a start right after
 * `kill -9` of the previous server then finds its ports and store released instead of refusing.
 * A holder that runs is not waited for; the lock then refuses at once.
 */
export async function awaitExitingHolder(dataDir: string, timeoutMs = EXIT_WAIT_MS): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const holder = recordedHolder(dataDir);
    if (!holder || processState(holder.pid) !== 'exiting' || performance.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function recordedHolder(dataDir: string): LockHolder | undefined {
  try {
    const holder = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as LockHolder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    // Missing, or half-written by a starter that died at that very moment: nobody holds it.
    return undefined;
  }
}

/** `flags` of /proc/<pid>/stat: the process has begun to exit. */
const PF_EXITING = 0x4;
/** SIGKILL (9) in the pending-signal mask of /proc/<pid>/stat. */
const SIGKILL_PENDING = 1 << 8;

/**
 * A process killed with -9 is not gone at once: until its last thread has exited it still holds
 * its ports and the store's files, and then it is a zombie until its parent reaps it, which
 * `kill(pid, 0)` cannot tell from a live process. Linux's /proc tells them apart; elsewhere a
 * process that `kill(pid, 0)` finds counts as running.
 */
function processState(pid: number): 'running' | 'exiting' | 'gone' {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? 'running' : 'gone';
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // Gone since `kill` found it, or no /proc to ask.
    return existsSync('/proc/self/stat') ? 'gone' : 'running';
  }
  // The fields after the command name (in parentheses, and it may hold spaces), from the third: state.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  const flags = Number(fields[6]); // the ninth field
  const pendingSignals = Number(fields[28]); // the 31st
  // A zombie (or dead) leader whose other threads are still exiting still holds what they share.
  if (state === 'Z' || state === 'X') return threadCount(pid) > 1 ? 'exiting' : 'gone';
  return (flags & PF_EXITING) !== 0 || (pendingSignals & SIGKILL_PENDING) !== 0 ? 'exiting' : 'running';
}

function threadCount(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/task`).length;
  } catch {
    return 0;
  }
}

function describeHolder(dataDir: string, holder: LockHolder): string {
  const what =
    holder.holder === 'server'
      ? `another local server (pid ${holder.pid}, API port ${holder.port}, DynamoDB port ${holder.dynamoPort})`
      : `a keys or import command (pid ${holder.pid})`;
  return `${dataDir} is in use by ${what}. Stop it first, or set DATA_DIR to use another data directory (if no such process runs, delete ${join(dataDir, LOCK_FILE)}).`;
}
