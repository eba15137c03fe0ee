import type { ProjectedEntry, Projector } from '../pipeline/projector';
import { applyJourneyEvents, applyJourneyOrders, applyOrderDates, forgetOrderDates, resolvePersons, retractDeliveries, writeInitialJourneys, type JourneyDelivery } from '../store/journey-repository';

/**
 * Keeps the identity graph, every identifier's touchpoints, each order's date and each order's
 * journey (journey-repository.ts) current with what the pipeline stores. Deliveries that lost to
 * an earlier one are taken back before the batch's winners are written, so a winner of the same
 * eventId is (re)written after. Then the orders the batch can change, in the persons of every
 * identifier it touched, have their journeys filed again (`resolvePersons`: the orders in 90 days
 * after its touchpoints, its own orders, every order of a person it merged or split). A retry
 * takes the same deliveries back again (what each wrote is read from its event page, which keeps
 * it), so it resolves the same identifiers.
 *
 * Orders are linked to their customer's identifiers only from batches without events: the order
 * import and the rebuild. An order made by purchase events is linked by those events themselves
 * (each carries its `orderId` and its user's identifiers), which P6 keeps exact when a delivery
 * is taken back; an order's own state, whose deletion does not reach projectors, is not needed.
 */
export const journeyProjector: Projector = {
  name: 'attribution-journeys',
  async project({ pixelId, entries, orders, deletedOrders = [] }) {
    const takenBack = await retractDeliveries(pixelId, entries.flatMap((entry) => entry.superseded));
    const touched = new Set<string>();
    const fromEvents = await applyJourneyEvents(pixelId, deliveriesOf(entries), orders);
    for (const identifier of fromEvents.touched) touched.add(identifier);
    if (entries.length === 0 && orders.length > 0) for (const identifier of await applyJourneyOrders(pixelId, orders)) touched.add(identifier);
    for (const identifier of await applyOrderDates(pixelId, orders, fromEvents.dated)) touched.add(identifier);
    for (const identifier of await forgetOrderDates(pixelId, deletedOrders)) touched.add(identifier);
    await resolvePersons(pixelId, {
      touched,
      split: takenBack.flatMap((delivery) => delivery.ids),
      entryIds: new Set(entries.map((entry) => entry.entryId)),
      orderIds: new Set([...orders.map(({ order }) => order.orderId), ...deletedOrders.map(({ orderId }) => orderId)]),
      known: fromEvents.written,
    });
  },
  // Seeding stands for an import of the orders plus the consumer's entries: the orders are linked.
  seedInitial: ({ pixelId, entries, orders }) =>
    writeInitialJourneys(pixelId, deliveriesOf(entries), orders),
};

const deliveriesOf = (entries: readonly ProjectedEntry[]): JourneyDelivery[] =>
  entries.flatMap(({ entryId, acceptedAt, events }) => events.map((event) => ({ entryId, acceptedAt, event })));
