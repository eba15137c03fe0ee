import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCohortAnalysis } from '../../shared/analytics/cohort-service';
import { readModelSource, type QuerySource } from '../../shared/analytics/query-service';
import { importOrdersFile } from '../../shared/orders/import-orders';
import { queryCohortRequestSchema } from '../../shared/schemas/query-cohort';
import { importAds } from '../support/ad-store';
import { useFreshTable } from '../support/fresh-table';

const PIXEL = 'px_cohort_store';
const NOW = Date.parse('2026-06-01T00:00:00Z');

beforeAll(async () => {
  await useFreshTable();
  await importAds(PIXEL, [], [{ date: '2025-01-01', rates: { USD: 1 } }]);
  const order = (orderId: string, orderDate: string, userId: string, fields: Record<string, unknown> = {}) => ({ orderId, orderDate, value: 10, currency: 'USD', customer: { userIds: [userId] }, ...fields });
  const file = join(mkdtempSync(join(tmpdir(), 'cohorts-')), 'orders.ndjson');
  writeFileSync(
    file,
    [
      // x bought in December: not new in January.
      order('x-0', '2025-12-20T10:00:00Z', 'x'),
      order('x-1', '2026-01-10T10:00:00Z', 'x'),
      // y is January's new customer and comes back in February (period 1) and in April (past the periods asked).
      order('y-1', '2026-01-15T10:00:00Z', 'y'),
      order('y-2', '2026-02-15T10:00:00Z', 'y', { value: 30 }),
      order('y-3', '2026-04-15T10:00:00Z', 'y'),
      // z's first order is voided: z is new at the paid one, unless voided orders count.
      order('z-1', '2026-01-25T10:00:00Z', 'z', { financialStatus: 'voided' }),
      order('z-2', '2026-02-20T10:00:00Z', 'z'),
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
  );
  await importOrdersFile(PIXEL, file);
});

const request = (orderSettings: Record<string, unknown> = {}) =>
  queryCohortRequestSchema.parse({
    pixelId: PIXEL,
    granularity: 'month',
    measures: ['orders.customers_cohort', 'orders.ltv_cohort_gross_revenue', 'orders.cohort_retention_percent'],
    dateRange: { start: '2026-01-01', end: '2026-02-28' },
    periods: 1,
    orderSettings,
  });


const cells = (result: Awaited<ReturnType<typeof runCohortAnalysis>>) =>
  result.results[0]!.data.primary.map((point) => [point.dt, point.period, point['orders.customers_cohort'], point['orders.ltv_cohort_gross_revenue'], point['orders.cohort_retention_percent']]);

describe('cohorts over the stored read models', () => {
  it('forms cohorts by first counted order over all stored history, and reads later periods past the window', async () => {
    const result = await runCohortAnalysis(PIXEL, request(), readModelSource, NOW);
    expect(cells(result)).toEqual([
      ['2026-01', 0, 1, 10, 100],
      ['2026-01', 1, 1, 40, 100],
      ['2026-02', 0, 1, 10, 100],
      ['2026-02', 1, 1, 10, 0],
    ]);
    // Counting voided orders makes z January's customer too, through the voided order.
    const voided = await runCohortAnalysis(PIXEL, request({ countVoidedOrders: true }), readModelSource, NOW);
    expect(cells(voided).filter(([, period]) => period === 0)).toEqual([
      ['2026-01', 0, 2, 10, 100],
      ['2026-02', 0, 0, null, null],
    ]);
  });

});
