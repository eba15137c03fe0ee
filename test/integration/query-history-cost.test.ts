import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventsTableProjector } from '../../shared/analytics/store/events-table-projector';
import { queryReadModelProjector } from '../../shared/analytics/query-read-model-projector';
import { runQuery } from '../../shared/analytics/query-service';
import { projectLogEntries } from '../../shared/pipeline/project-log-entries';
import { queryRequestSchema } from '../../shared/schemas/query-measures';
import { bulkDocumentClient, documentClient } from '../../shared/store/dynamo-client';
import type { LogEntry } from '../../shared/store/log-repository';
import { applyOrders } from '../../shared/store/query-read-models';
import { useFreshTable } from '../support/fresh-table';
import { largeDayEvent } from '../support/large-day-events';
import { largeDayOrder } from '../support/large-day-orders';

beforeAll(async () => {
  await useFreshTable();
});
afterEach(() => vi.restoreAllMocks());

const DAY_MS = 86_400_000;
const LAST_DAY = Date.parse('2026-06-30T00:00:00Z');
const CUSTOMERS = 40;
const ORDERS_PER_DAY = 1;
const EVENTS_PER_DAY = 2;

/** A pixel's history of `days` days ending on LAST_DAY: the same last days for every length, so only the older history differs. */
async function seed(pixelId: string, days: number): Promise<void> {
  const starts = Array.from({ length: days }, (_, back) => LAST_DAY - back * DAY_MS);
  // Customers take turns day after day, so the older history holds earlier orders of the same customers.
  const orders = starts.flatMap((dayStart, back) =>
    Array.from({ length: ORDERS_PER_DAY }, (_, index) => ({ order: largeDayOrder(dayStart, back * ORDERS_PER_DAY + index, CUSTOMERS), version: 1 })),
  );
  for (let start = 0; start < orders.length; start += 200) await applyOrders(pixelId, orders.slice(start, start + 200));
  const entries: LogEntry[] = starts.map((dayStart) => ({
    pixelId,
    entryId: `01KHIST${String(dayStart / DAY_MS).padStart(10, '0')}`,
    acceptedAt: new Date(dayStart + DAY_MS / 2).toISOString(),
    events: Array.from({ length: EVENTS_PER_DAY }, (_, index) => largeDayEvent(dayStart, index, 5)),
  }));
  for (let start = 0; start < entries.length; start += 25) await projectLogEntries(pixelId, entries.slice(start, start + 25), { projectors: [eventsTableProjector, queryReadModelProjector] });
}

/** What one query asks of the store: each call's command and how many items it read. */
async function storeCallsOf(pixelId: string) {
  const calls: string[] = [];
  let itemsRead = 0;
  // Point reads and bulk reads (BatchGet, paginated Query) go through two clients: both are watched.
  for (const client of [documentClient, bulkDocumentClient]) {
    const send = client.send.bind(client);
    vi.spyOn(client, 'send').mockImplementation((async (command: { constructor: { name: string } }) => {
      const output = (await send(command as never)) as { Items?: unknown[]; Item?: unknown; Responses?: Record<string, unknown[]>; ScannedCount?: number };
      const items = output.Items?.length ?? (output.Responses ? Object.values(output.Responses).reduce((sum, list) => sum + list.length, 0) : output.Item ? 1 : 0);
      itemsRead += items;
      calls.push(`${command.constructor.name} ${items} scanned ${output.ScannedCount ?? '-'}`);
      return output;
    }) as never);
  }
  const request = queryRequestSchema.parse({
    pixelId,
    measures: ['orders.orders', 'orders.net_revenue', 'orders.new_customers', 'orders.customers', 'events.count', 'events.visitors'],
    granularity: 'day',
    dateRange: { start: '2026-04-02', end: '2026-06-30' },
    compareDateRange: { start: '2026-01-02', end: '2026-04-01' },
  });
  const response = await runQuery(pixelId, request);
  vi.restoreAllMocks();
  return { calls: calls.sort(), itemsRead, points: response.results[0]!.data.primary.length };
}

describe('the cost of a 90-day query', () => {
  it('is the same with 1 or 5 years of history: the same store calls, reading the same number of items, and never a scan', { timeout: 300_000 }, async () => {
    await seed('px_history_1y', 365);
    await seed('px_history_5y', 5 * 365);

    const oneYear = await storeCallsOf('px_history_1y');
    const fiveYears = await storeCallsOf('px_history_5y');

    expect(oneYear.points).toBe(90);
    // It read the range’s days: orders and events of 180 days.
    expect(oneYear.itemsRead).toBeGreaterThanOrEqual(180);
    expect(fiveYears.calls).toEqual(oneYear.calls);
    expect(oneYear.calls.filter((call) => call.startsWith('Scan'))).toEqual([]);
  });
});
