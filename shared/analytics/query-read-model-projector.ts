import type { Projector } from '../pipeline/projector';
import { applyEventCounts, applyEvents, applyOrders, retractEvents, writeInitialReadModels } from '../store/query-read-models';

/**
 * Keeps the analytics query's read models (order facts by order day, refund day and customer
 * identifier; event facts and hourly counts by day) current with what the pipeline stores.
 * Both appliers key what they write by eventId / orderId and never let an older order version
 * replace a newer one, and deliveries that lost to an earlier one are taken back first, so a
 * repeated or reordered batch writes the same state.
 */
export const queryReadModelProjector: Projector = {
  name: 'query-measures',
  async project({ pixelId, entries, orders, deletedOrders = [] }) {
    await retractEvents(pixelId, entries.flatMap((entry) => entry.superseded));
    await applyEvents(pixelId, entries);
    await applyEventCounts(pixelId, entries);
    if (orders.length > 0 || deletedOrders.length > 0) await applyOrders(pixelId, orders, deletedOrders);
  },
  seedInitial: ({ pixelId, entries, orders }) => writeInitialReadModels(pixelId, orders, entries.flatMap((entry) => entry.events), entries),
};
