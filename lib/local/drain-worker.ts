/**
 * The projection thread's program (see drain-thread.ts): the drain, woken by the shards the
 * appending thread relays, until that thread says close.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';
import type { DrainThreadMessage, DrainThreadOptions } from './drain-thread';

const port = parentPort;
if (!port) throw new Error('drain-worker.ts runs as a worker thread (startDrainThread)');
const options = workerData as DrainThreadOptions;

for (const module of options.preload ?? []) await import(pathToFileURL(resolve(module)).href);
const { startDrain } = await import('../../shared/pipeline/drain');
const { readModelProjectors } = await import('../../shared/pipeline/read-models');
const { announcePendingShard } = await import('../../shared/store/pending-index');

const names = options.projectorNames;
const drain = startDrain({
  ...(names ? { projectors: readModelProjectors.filter((projector) => names.includes(projector.name)) } : {}),
  ...(options.idlePollMs === undefined ? {} : { idlePollMs: options.idlePollMs }),
});

port.on('message', (message: DrainThreadMessage) => {
  // The appending thread's writes, told to this thread's drain as its own appends would be.
  if (message.kind === 'pending') announcePendingShard(message.shard);
  else if (message.kind === 'close') {
    // Ends this thread only (open SDK connections and all) once the pass in flight is done.
    void drain.close().then(() => process.exit(0));
  }
});
port.postMessage({ kind: 'ready' } satisfies DrainThreadMessage);
