/**
 * Preloaded into a projection thread by a test (DRAIN_THREAD_CRASH_FLAG=<file>): the first thread
 * to load it ends with an uncaught error when it is first told of a pending item, before its drain
 * can project it. The flag file makes every later thread run normally.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

const flag = process.env.DRAIN_THREAD_CRASH_FLAG;
if (flag && !existsSync(flag)) {
  writeFileSync(flag, '');
  parentPort?.on('message', (message: { kind: string }) => {
    if (message.kind === 'pending') throw new Error('injected: the projection thread fails');
  });
}
