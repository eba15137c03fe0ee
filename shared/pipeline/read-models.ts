import { queryReadModelProjector } from '../analytics/query-read-model-projector';
import { journeyProjector } from '../attribution/journey-projector';
import type { Projector } from './projector';

/**
 * Every read model kept current by the pipeline. A read model joins by being added here; the
 * consumer, the order import and `npm run rebuild-read-models` all read this list.
 */
export const readModelProjectors: Projector[] = [queryReadModelProjector, journeyProjector];

/** Runs every projector (or the given ones) over one batch, one after the other. */
export async function runProjectors(batch: Parameters<Projector['project']>[0], projectors: readonly Projector[] = readModelProjectors): Promise<void> {
  if (batch.entries.length === 0 && batch.orders.length === 0) return;
  for (const projector of projectors) await projector.project(batch);
}
