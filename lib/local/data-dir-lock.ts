import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
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

/**
 * One process at a time opens a data directory's store: a second one would find LevelDB locked
 * and fail in the middle of its start. The lock is a file created exclusively, holding the
 * holder's pid; a lock whose process no longer runs (killed with -9, say) is stale and taken over.
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

/** The live process holding the data directory, if any. */
export function lockHolder(dataDir: string): LockHolder | undefined {
  let holder: LockHolder;
  try {
    holder = JSON.parse(readFileSync(join(dataDir, LOCK_FILE), 'utf8')) as LockHolder;
  } catch {
    // Missing, or half-written by a starter that died at that very moment: nobody holds it.
    return undefined;
  }
  return Number.isInteger(holder.pid) && isRunning(holder.pid) ? holder : undefined;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function describeHolder(dataDir: string, holder: LockHolder): string {
  const what =
    holder.holder === 'server'
      ? `another local server (pid ${holder.pid}, API port ${holder.port}, DynamoDB port ${holder.dynamoPort})`
      : `a keys or import command (pid ${holder.pid})`;
  return `${dataDir} is in use by ${what}. Stop it first, or set DATA_DIR to use another data directory (if no such process runs, delete ${join(dataDir, LOCK_FILE)}).`;
}
