import { settleAll } from '../settle-all';
import { eventsTableProjector } from '../analytics/store/events-table-projector';
import { journeyProjector } from '../attribution/journey-projector';
import type { Projector } from './projector';

/**
 * Every read model kept current by the pipeline. A read model joins by being added here; the
 * consumer, the order import and `npm run rebuild-read-models` all read this list.
 */
export const readModelProjectors: Projector[] = [eventsTableProjector, journeyProjector];

/**
 * Runs every projector (or the given ones) over one batch, side by side: each keeps items of its
 * own and reads only what the batch and the core stores give it, so none waits on another, and a
 * batch takes as long as its slowest read model rather than their sum (what bounds the lag).
 */
export async function runProjectors(batch: Parameters<Projector['project']>[0], projectors: readonly Projector[] = readModelProjectors): Promise<void> {
  if (batch.entries.length === 0 && batch.orders.length === 0) return;
  await settleAll(projectors.map((projector) => projector.project(batch)));
}

/**
 * Brings every read model (or the given ones) up to a whole set of entries and orders of a pixel
 * that has no read-model items yet: each projector's bulk `seedInitial`, or its `project` (orders
 * first, as the import hands them, then the entries, as the consumer does).
 */
export async function seedProjectors(batch: Parameters<Projector['project']>[0], projectors: readonly Projector[] = readModelProjectors): Promise<void> {
  for (const projector of projectors) {
    if (projector.seedInitial) {
      await projector.seedInitial(batch);
    } else {
      await projector.project({ pixelId: batch.pixelId, entries: [], orders: batch.orders });
      for (let start = 0; start < batch.entries.length; start += 10) await projector.project({ pixelId: batch.pixelId, entries: batch.entries.slice(start, start + 10), orders: [] });
    }
  }
}
