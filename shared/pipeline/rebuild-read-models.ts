import { daysBetween, readEventPages } from '../store/event-repository';
import { readVersionedOrders } from '../analytics/store/order-store';
import type { Projector } from './projector';
import { readModelProjectors, runProjectors } from './read-models';

export interface RebuildSummary {
  projectors: string[];
  entries: number;
  events: number;
  orders: number;
}

/**
 * Replays a pixel's stored events (day by day, each page as the entry it came from) and its orders
 * (by order date) through read-model projectors: after a new read model is added, or to repair
 * one. Projectors are idempotent, so replaying over a current read model changes nothing, and
 * the live pipeline may keep running meanwhile.
 */
export async function rebuildReadModels(
  pixelId: string,
  range: { from: Date; to: Date },
  projectors: readonly Projector[] = readModelProjectors,
): Promise<RebuildSummary> {
  const summary: RebuildSummary = { projectors: projectors.map((projector) => projector.name), entries: 0, events: 0, orders: 0 };
  for (const day of daysBetween(range.from, range.to)) {
    for (const page of await readEventPages(pixelId, [day])) {
      await runProjectors({ pixelId, entries: [{ entryId: page.entryId, acceptedAt: page.acceptedAt, events: page.events, lost: page.lost, superseded: [] }], orders: [] }, projectors);
      summary.entries++;
      summary.events += page.events.length;
    }
  }
  const { orders, deleted } = await readVersionedOrders(pixelId, range.from, range.to);
  for (let start = 0; start < orders.length; start += 100) {
    await runProjectors({ pixelId, entries: [], orders: orders.slice(start, start + 100) }, projectors);
  }
  // Orders whose statements were all taken back: a read model that missed the deletion drops them.
  for (let start = 0; start < deleted.length; start += 100) {
    await runProjectors({ pixelId, entries: [], orders: [], deletedOrders: deleted.slice(start, start + 100) }, projectors);
  }
  summary.orders = orders.length;
  return summary;
}
