import type { Projector } from '../pipeline/projector';
import { applyJourneyEvents, applyJourneyOrders, retractDeliveries, writeInitialJourneys } from '../store/journey-repository';

/**
 * Keeps the identity graph and every person's touchpoints (journey-repository.ts) current with
 * what the pipeline stores. Deliveries that lost to an earlier one are taken back before the
 * batch's winners are written, so a winner of the same eventId is (re)written after.
 *
 * Orders are linked to their customer's identifiers only from batches without events: the order
 * import and the rebuild. An order made by purchase events is linked by those events themselves
 * (each carries its `orderId` and its user's identifiers), which P6 keeps exact when a delivery
 * is taken back; an order's own state, whose deletion does not reach projectors, is not needed.
 */
export const journeyProjector: Projector = {
  name: 'attribution-journeys',
  async project({ pixelId, entries, orders }) {
    await retractDeliveries(pixelId, entries.flatMap((entry) => entry.superseded));
    await applyJourneyEvents(pixelId, entries.flatMap((entry) => entry.events.map((event) => ({ entryId: entry.entryId, event }))));
    if (entries.length === 0 && orders.length > 0) await applyJourneyOrders(pixelId, orders);
  },
  // Seeding stands for an import of the orders plus the consumer's entries: the orders are linked.
  seedInitial: ({ pixelId, entries, orders }) =>
    writeInitialJourneys(pixelId, entries.flatMap((entry) => entry.events.map((event) => ({ entryId: entry.entryId, event }))), orders),
};
