/**
 * Preloaded into a projection thread by a test (DRAIN_THREAD_CRASH_FLAG=<file>): the first thread
 * to load it ends with an uncaught error when it is first told of a pending item, before its drain
 * can project it. The flag file makes every later thread run normally.
 *
 * With DRAIN_THREAD_HOLD=<dir> as well, a later thread (a restart) writes `<dir>/holding` and does
 * not start its drain until `<dir>/release` exists: the test can act while a restart is starting.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parentPort } from 'node:worker_threads';

const flag = process.env.DRAIN_THREAD_CRASH_FLAG;
const hold = process.env.DRAIN_THREAD_HOLD;
if (flag && !existsSync(flag)) {
  writeFileSync(flag, '');
  parentPort?.on('message', (message: { kind: string }) => {
    if (message.kind === 'pending') throw new Error('injected: the projection thread fails');
  });
} else if (hold) {
  writeFileSync(join(hold, 'holding'), '');
  while (!existsSync(join(hold, 'release'))) await sleep(20);
}
