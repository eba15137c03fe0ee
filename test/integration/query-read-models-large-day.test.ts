import { beforeAll, describe, expect, it } from 'vitest';
import { eventsTableProjector } from '../../shared/analytics/store/events-table-projector';
import { upsertOrders } from '../../shared/analytics/store/order-store';
import type { Order } from '../../shared/orders/order';
import type { OrderSource } from '../../shared/orders/order-sources';
import { runQuery } from '../../shared/analytics/query-service';
import { projectLogEntries } from '../../shared/pipeline/project-log-entries';
import { queryRequestSchema } from '../../shared/schemas/query-measures';
import type { LogEntry } from '../../shared/store/log-repository';
import { useFreshTable } from '../support/fresh-table';
import { largeDayEvent } from '../support/large-day-events';
import { largeDayOrder } from '../support/large-day-orders';

beforeAll(async () => {
  await useFreshTable();
});

const PIXEL = 'px_large_day';
const DAY = '2026-03-10';
/** Past what the 4-shard layout held in one UTC day (about 15,000-20,000 events at this mix). */
const EVENTS = 25_000;
const PEOPLE = 9_000;
const PER_ENTRY = 100;
const ENTRIES_PER_BATCH = 25;

const query = async (measures: string[]) => {
  const request = queryRequestSchema.parse({ pixelId: PIXEL, measures, granularity: 'none', dateRange: { start: DAY, end: DAY } });
  const [point] = (await runQuery(PIXEL, request)).results[0]!.data.primary as Array<Record<string, unknown>>;
  return point;
};

describe('a UTC day with more events than one pixel used to hold', () => {
  it('projects through the consumer and answers events.count and events.visitors exactly, under re-delivered batches', { timeout: 300_000 }, async () => {
    const dayStart = Date.parse(`${DAY}T00:00:00Z`);
    const events = Array.from({ length: EVENTS }, (_, index) => largeDayEvent(dayStart, index, PEOPLE));
    const entries: LogEntry[] = [];
    for (let start = 0; start < EVENTS; start += PER_ENTRY) {
      const n = start / PER_ENTRY;
      entries.push({ pixelId: PIXEL, entryId: `01KLARGEDAY${String(n).padStart(5, '0')}`, acceptedAt: `${DAY}T12:00:00.000Z`, events: events.slice(start, start + PER_ENTRY) });
    }
    for (let start = 0; start < entries.length; start += ENTRIES_PER_BATCH) {
      await projectLogEntries(PIXEL, entries.slice(start, start + ENTRIES_PER_BATCH), { projectors: [eventsTableProjector] });
    }
    // A stream record seen again: two batches delivered a second time, out of order.
    await projectLogEntries(PIXEL, entries.slice(ENTRIES_PER_BATCH, 2 * ENTRIES_PER_BATCH), { projectors: [eventsTableProjector] });
    await projectLogEntries(PIXEL, entries.slice(0, ENTRIES_PER_BATCH), { projectors: [eventsTableProjector] });

    const pageViews = events.filter((event) => event.name === 'page_view').length;
    const purchases = events.filter((event) => event.name === 'purchase').length;
    // Counts alone are read from the day's rollup; with a people measure, from the facts.
    expect(await query(['events.count', 'events.page_views'])).toMatchObject({ 'events.count': EVENTS, 'events.page_views': pageViews });
    // Every person has identifiers of their own, and each of the 9,000 is seen at least twice.
    const people = await query(['events.count', 'events.visitors', 'events.purchases', 'events.conversion_rate']);
    expect(people).toMatchObject({ 'events.count': EVENTS, 'events.visitors': PEOPLE, 'events.purchases': purchases });
    // Ratios are answered to 6 decimals.
    expect(people!['events.conversion_rate']).toBeCloseTo((purchases / PEOPLE) * 100, 6);
  });
});

describe('a UTC day with more orders than one pixel used to hold', () => {
  it('projects 3,000 orders of one day (the 2-shard layout held about 2,000) and answers the order measures exactly, under re-delivered and older states', { timeout: 300_000 }, async () => {
    const pixel = 'px_large_order_day';
    const day = '2026-03-11';
    const dayStart = Date.parse(`${day}T00:00:00Z`);
    const ORDERS = 3_000;
    const CUSTOMERS = 1_500;
    const orders = Array.from({ length: ORDERS }, (_, index) => largeDayOrder(dayStart, index, CUSTOMERS));
    const BATCH = 250;
    const project = (from: number, to: number) => upsertOrders(pixel, orders.slice(from, to).map((order) => statementOf(order, '2026-03-12T00:00:00.000Z')));
    for (let start = 0; start < ORDERS; start += BATCH) await project(start, start + BATCH);
    // Re-delivered, and an older statement of some arriving late: neither changes anything.
    await project(BATCH, 2 * BATCH);
    await upsertOrders(pixel, orders.slice(0, BATCH).map((order) => statementOf({ ...order, value: 1 }, '2026-03-11T23:00:00.000Z')));

    // Hand-counted from the generator: pending orders (one in twenty) do not count by default, and
    // both orders of a customer share their index modulo 20, so 75 of the 1,500 customers have none.
    const counted = orders.filter((order) => order.financialStatus !== 'pending');
    const total = counted.reduce((sum, order) => sum + order.value!, 0);
    const refunds = counted.reduce((sum, order) => sum + order.refunds.reduce((part, refund) => part + refund.amount, 0), 0);
    const request = queryRequestSchema.parse({
      pixelId: pixel,
      measures: ['orders.orders', 'orders.total_revenue', 'orders.net_revenue', 'orders.customers', 'orders.new_customers', 'orders.returning_customer_orders'],
      granularity: 'none',
      dateRange: { start: day, end: day },
    });
    const [point] = (await runQuery(pixel, request)).results[0]!.data.primary as Array<Record<string, number>>;
    expect(point).toMatchObject({ 'orders.orders': counted.length, 'orders.customers': 1_425, 'orders.new_customers': 1_425, 'orders.returning_customer_orders': counted.length - 1_425 });
    expect(point!['orders.total_revenue']).toBeCloseTo(total, 2);
    expect(point!['orders.net_revenue']).toBeCloseTo(total - refunds, 2);
  });
});

/** An order as one imported statement of all its fields, true as of `asOf`. */
function statementOf(order: Order, asOf: string): OrderSource {
  const { orderId, orderDate, value, currency, sourceName, tags, paymentGateway, financialStatus, items } = order;
  return {
    key: `import:${orderId}:${asOf}`,
    pos: 'import',
    at: asOf,
    update: {
      orderId,
      asOf,
      fields: { orderDate, value, currency, sourceName, tags, paymentGateway, financialStatus, items },
      defaults: { financialStatus: 'paid' },
      refunds: order.refunds,
      customer: order.customer,
    },
  };
}
