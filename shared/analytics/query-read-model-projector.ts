import { settleAll } from '../settle-all';
import type { Projector } from '../pipeline/projector';
import { applyEventCounts, applyEvents, applyOrders, retractEvents, writeInitialReadModels } from '../store/query-read-models';

/**
 * Keeps the analytics query's read models (order facts by order day, refund day and customer
 * identifier; event facts by entry and day, hourly counts by day) current with what the pipeline
 * stores. Facts are keyed by entry and eventId, counts by event page (what each page's ledger says
 * was counted of it), orders by orderId, and an older order version never replaces a newer one;
 * deliveries that lost to an earlier one are taken back first, so a repeated or reordered batch
 * writes the same state.
 */
export const queryReadModelProjector: Projector = {
  name: 'query-measures',
  async project({ pixelId, entries, orders, deletedOrders = [] }) {
    // The event side and the order side keep items of their own: they run side by side (the order
    // side's round trips in sequence are most of a batch's wait).
    await settleAll([
      (async () => {
        await retractEvents(pixelId, entries.flatMap((entry) => entry.superseded));
        await applyEvents(pixelId, entries);
        await applyEventCounts(pixelId, entries);
      })(),
      orders.length > 0 || deletedOrders.length > 0 ? applyOrders(pixelId, orders, deletedOrders) : undefined,
    ]);
  },
  seedInitial: ({ pixelId, entries, orders }) => writeInitialReadModels(pixelId, orders, entries.flatMap((entry) => entry.events), entries),
};
