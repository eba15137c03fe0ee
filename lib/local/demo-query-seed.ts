import { importSource } from '../../shared/orders/import-orders';
import { orderUpdateFromImport } from '../../shared/orders/order-updates';
import type { ProjectedEntry } from '../../shared/pipeline/projector';
import { seedProjectors } from '../../shared/pipeline/read-models';
import { dayOf, pageKey, writeEventPages, type EventPage } from '../../shared/store/event-repository';
import { writeNewOrders } from '../../shared/analytics/store/order-store';
import { eventTtl } from '../../shared/store/retention';
import { toStoredEvent, type StoredEvent } from '../../shared/tracking/stored-event';
import { DEMO_ORDER_DEFAULTS, generateDemoDays } from './demo-orders';

/**
 * First-start seed step for the analytics queries: 90 days of demo orders in the order store
 * (through the same merge as the import) and the pixel events around them in the event store
 * (one entry a day, as if the events API had accepted them at the first start), then every
 * registered read model from them (`seedProjectors`: each projector's bulk seeding, or its
 * `project`): a read model added later sees the demo data with no seeding of its own, and
 * `npm run rebuild-read-models` on the demo pixel finds the same events.
 * Repeatable: the same clock writes the same items (events keep their server ids, entries their ids).
 */
export async function seedDemoOrdersAndEvents(pixelId: string, now: Date): Promise<{ orders: number; events: number }> {
  const days = [...generateDemoDays({ ...DEMO_ORDER_DEFAULTS, end: now })];
  const orders = await writeNewOrders(pixelId, days.flatMap((day) => day.orders.map((line) => importSource(orderUpdateFromImport(line, now), now))));
  const acceptedAt = now.toISOString();
  // One entry per UTC day of the events (a journey's earlier visits fall on earlier days), so each
  // entry is one page of the event store.
  const byDay = new Map<string, StoredEvent[]>();
  for (const day of days) {
    day.events.forEach((input, i) => {
      const event = toStoredEvent(input, { eventId: `demo-${day.date}-${i}`, eventIdSource: 'server', receivedAt: new Date(Date.parse(input.timestamp!)) });
      const list = byDay.get(dayOf(event.timestamp));
      if (list) list.push(event);
      else byDay.set(dayOf(event.timestamp), [event]);
    });
  }
  const entries: ProjectedEntry[] = [...byDay]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    // Sorts before any ULID the events API mints later, as the earliest entries of the log.
    .map(([date, events]) => ({ entryId: `00DEMO${date.replaceAll('-', '')}`, acceptedAt, events, superseded: [] }));
  await writeEventPages(entries.flatMap((entry) => pagesOf(pixelId, entry)));
  await seedProjectors({ pixelId, entries, orders });
  return { orders: orders.length, events: entries.reduce((sum, entry) => sum + entry.events.length, 0) };
}

/** An entry's events as the event store keeps them: one page per UTC day of the events. */
function pagesOf(pixelId: string, entry: ProjectedEntry): EventPage[] {
  const byDay = new Map<string, EventPage>();
  for (const event of entry.events) {
    const day = dayOf(event.timestamp);
    let page = byDay.get(day);
    if (!page) byDay.set(day, (page = { key: pageKey(pixelId, day, entry.entryId), entryId: entry.entryId, acceptedAt: entry.acceptedAt, events: [], superseded: [], ttl: eventTtl(entry.acceptedAt) }));
    page.events.push(event);
  }
  return [...byDay.values()];
}
