import { Worker } from 'node:worker_threads';
import type { RunningDrain } from '../../shared/pipeline/drain';
import { onPendingWritten } from '../../shared/store/pending-index';

export interface DrainThreadOptions {
  /** The read models to project, by name; all of them when absent (`[]`: the core stores only). */
  projectorNames?: readonly string[];
  idlePollMs?: number;
  /** Modules the thread imports before it starts (relative to the working directory): the bench's store-call counter. */
  preload?: readonly string[];
}

/** Between the thread that appends and the drain's thread. */
export type DrainThreadMessage = { kind: 'pending'; shard: number } | { kind: 'close' } | { kind: 'ready' };

/** How long a stop waits for the pass in flight before the thread is ended anyway. */
const CLOSE_GRACE_MS = 10_000;
/** The pause before a thread that ended on its own is started again. */
const RESTART_DELAY_MS = 1_000;

/**
 * The drain (shared/pipeline/drain.ts) on a worker thread of its own, as the stream's consumer
 * runs in Lambdas apart from the API's: projecting a backlog then costs the front door none of
 * its thread, so accepting stays fast under load, and the two use both cores of a laptop. This
 * thread relays the shards its appends wake (the drain's thread has its own module instances, so
 * it does not hear them), and a drain thread that ends on its own (an uncaught fault) is logged
 * and started again: what it had not projected is still pending in the store.
 */
export async function startDrainThread(options: DrainThreadOptions = {}): Promise<RunningDrain> {
  let closing = false;
  let restart: NodeJS.Timeout | undefined;
  // A restart whose thread is starting: a stop waits for it, and ends that thread.
  let restarting: Promise<void> | undefined;
  let worker = await startWorker(options);
  const stopRelaying = onPendingWritten((shard) => worker.postMessage({ kind: 'pending', shard } satisfies DrainThreadMessage));

  const scheduleRestart = () => {
    restart = setTimeout(() => {
      restarting = startWorker(options).then(
        async (next) => {
          if (closing) return void (await next.terminate());
          worker = next;
          watch(next);
        },
        (error: unknown) => {
          console.error('[drain] the projection thread could not start again:', error);
          if (!closing) scheduleRestart();
        },
      );
    }, RESTART_DELAY_MS);
  };
  const watch = (current: Worker) => {
    current.on('error', (error) => console.error('[drain] the projection thread failed:', error));
    current.once('exit', (code) => {
      if (closing) return;
      console.error(`[drain] the projection thread ended (exit code ${code}); starting it again in ${RESTART_DELAY_MS} ms`);
      scheduleRestart();
    });
  };
  watch(worker);

  return {
    close: async () => {
      closing = true;
      clearTimeout(restart);
      stopRelaying();
      await restarting;
      const current = worker;
      if (current.threadId === -1) return;
      const exited = new Promise<void>((resolve) => current.once('exit', () => resolve()));
      const deadline = setTimeout(() => void current.terminate(), CLOSE_GRACE_MS);
      current.postMessage({ kind: 'close' } satisfies DrainThreadMessage);
      await exited;
      clearTimeout(deadline);
    },
  };
}

/** Starts a drain thread and resolves once its drain runs; rejects with why it could not start. */
function startWorker(options: DrainThreadOptions): Promise<Worker> {
  return new Promise((resolve, reject) => {
    // The thread loads the TypeScript sources as this process does: tsx's loader does not reach a
    // worker through `--import`, so the thread registers it itself before loading its program.
    const program = new URL('./drain-worker.ts', import.meta.url).href;
    const bootstrap = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(program)}); });`;
    const worker = new Worker(bootstrap, { eval: true, workerData: options });
    const failed = (error: unknown) => reject(error instanceof Error ? error : new Error(`The projection thread exited with code ${String(error)} before it started`));
    worker.once('error', failed);
    worker.once('exit', failed);
    worker.once('message', (message: DrainThreadMessage) => {
      worker.off('error', failed);
      worker.off('exit', failed);
      if (message.kind === 'ready') resolve(worker);
      else reject(new Error(`The projection thread said ${message.kind} before it started`));
    });
  });
}
