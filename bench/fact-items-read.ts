/**
 * Read cost of the query's per-day fact items: 180 days of generated data, then a 90-day day-granularity
 * query with its comparison, through `runQuery` on a store in its own process (median of the runs).
 * - `events`: the people measures (`events.visitors`, `events.conversion_rate`), the only ones that
 *   read the per-event facts; the query bench's 1,000,000 events a year, 2,740 a day, with identities.
 * - `orders`: five order measures, reading the packed order-day items; 274 orders a day.
 * `node --import tsx bench/event-facts-read.ts events|orders [runs]`.
 */
import { ensureTable } from '../lib/local/dynamodb';
import { localConfig, useLocalServices } from '../lib/local/local-config';
import { startBenchStore } from './bench-store';
import { summarize } from './stats';

const EVENTS_PER_DAY = 2_740;
const ORDERS_PER_DAY = 274;
const DAYS = 180;
const END = Date.parse('2026-11-23T00:00:00Z');
const DAY_MS = 86_400_000;
const mode = process.argv[2] === 'orders' ? 'orders' : 'events';

const store = await startBenchStore('child-process');
try {
  const config = { ...localConfig(), tableName: 'fact-items-read' };
  await ensureTable(store.endpoint, config.tableName);
  useLocalServices(config, { dynamodb: store.endpoint });
  // Imported only now: the repositories build their SDK client at import, after useLocalServices.
  const { writeInitialReadModels } = await import('../shared/store/query-read-models');
  const { runQuery } = await import('../shared/analytics/query-service');
  const { queryRequestSchema } = await import('../shared/schemas/query-measures');
  const { largeDayEvent } = await import('../test/support/large-day-events');
  const { largeDayOrder } = await import('../test/support/large-day-orders');
  const events = [];
  const orders = [];
  for (let day = 0; day < DAYS; day++) {
    const dayStart = END - (DAYS - day) * DAY_MS;
    if (mode === 'events') for (let i = 0; i < EVENTS_PER_DAY; i++) events.push(largeDayEvent(dayStart, i, 900));
    else for (let i = 0; i < ORDERS_PER_DAY; i++) orders.push({ order: largeDayOrder(dayStart, i + day * ORDERS_PER_DAY, 20_000), version: 1 });
  }
  await writeInitialReadModels('px_facts', orders, events);
  const request = queryRequestSchema.parse({
    pixelId: 'px_facts',
    measures: mode === 'events' ? ['events.visitors', 'events.conversion_rate'] : ['orders.orders', 'orders.net_revenue', 'orders.new_customers', 'orders.customers', 'orders.average_order_value'],
    granularity: 'day',
    dateRange: { start: '2026-08-25', end: '2026-11-22' },
  });
  const runs = Number(process.argv[3] ?? 15);
  const times: number[] = [];
  for (let run = 0; run < runs + 2; run++) {
    const started = performance.now();
    await runQuery('px_facts', request);
    if (run >= 2) times.push(performance.now() - started);
  }
  console.log(JSON.stringify({ mode, events: events.length, orders: orders.length, ...summarize(times) }));
} finally {
  await store.close();
}
