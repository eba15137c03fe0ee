import { importSource } from '../../shared/orders/import-orders';
import { orderUpdateFromImport } from '../../shared/orders/order-updates';
import { writeNewOrders } from '../../shared/store/order-repository';
import { writeInitialReadModels } from '../../shared/store/query-read-models';
import { toStoredEvent } from '../../shared/tracking/stored-event';
import { DEMO_ORDER_DEFAULTS, generateDemoDays } from './demo-orders';

/**
 * First-start seed step for the analytics query: 90 days of demo orders in the order store
 * (through the same merge as the import) and the pixel events around them, then the query read
 * models for both. The demo events go to the events read model only (what the query reads); the
 * events store stays what the events API received, and the first start stays fast.
 * Repeatable: the same options write the same items.
 */
export async function seedDemoOrdersAndEvents(pixelId: string, now: Date): Promise<{ orders: number; events: number }> {
  const days = [...generateDemoDays({ ...DEMO_ORDER_DEFAULTS, end: now })];
  const orders = await writeNewOrders(pixelId, days.flatMap((day) => day.orders.map((line) => importSource(orderUpdateFromImport(line, now), now))));
  const events = days.flatMap((day) =>
    day.events.map((input, i) => toStoredEvent(input, { eventId: `demo-${day.date}-${i}`, eventIdSource: 'server', receivedAt: new Date(Date.parse(input.timestamp!)) })),
  );
  await writeInitialReadModels(pixelId, orders, events);
  return { orders: orders.length, events: events.length };
}
