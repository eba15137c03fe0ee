import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cohortQuery, order, type MemoryPixel } from '../support/query-fixtures';

/*
 * The hand-built pixel of the README's cohort definitions. Monthly cohorts of January and February
 * 2026, four periods after acquisition, read on 2026-06-15 (June has not ended).
 * - alice: o1 on Jan 10 (SKU S1 ×2), her second order o2 three periods later (Apr 5, S1 ×1);
 * - bob: o3 on Jan 20, 50 refunded on Mar 10;
 * - carol: o4 pending on Jan 25, o5 on Feb 3: new in February, unless pending orders count;
 * - dave: o6 at the POS on Dec 15 (before the window), o7 on Jan 15: not new in the window,
 *   unless an exclusion filter drops POS orders;
 * - o8 without identity, 50 EUR (= 62.5 USD) on Feb 10.
 * Costs: 40 % default COGS, 1 handling a line, 5 default shipping, Stripe 2 % + 0.30; S1 costs 10
 * through Jan 10 and 12 from Jan 11.
 */
const alice = { userIds: [], emailHashes: ['alice'], phoneHashes: [] };
const bob = { userIds: ['bob'], emailHashes: [], phoneHashes: [] };
const carol = { userIds: [], emailHashes: [], phoneHashes: ['carol'] };
const dave = { userIds: ['dave'], emailHashes: [], phoneHashes: [] };
const pixel: MemoryPixel = {
  fx: [{ date: '2025-01-01', rates: { USD: 1, EUR: 0.8 } }],
  events: [],
  ads: [],
  costSettings: { defaultCogsPercent: 40, handlingFeePerItem: 1, defaultShippingCostPerOrder: 5, gatewayFees: [{ gateway: 'Stripe', percent: 2, fixed: 0.3 }], currency: 'USD' },
  skuCosts: [
    { sku: 'S1', cost: 10, currency: 'USD', effectiveFrom: '2026-01-01', effectiveTo: '2026-01-10' },
    { sku: 'S1', cost: 12, currency: 'USD', effectiveFrom: '2026-01-11' },
  ],
  orders: [
    order('o1', '2026-01-10T23:30:00Z', { value: 100, customer: alice, items: [{ sku: 'S1', quantity: 2, price: 50 }] }),
    order('o2', '2026-04-05T10:00:00Z', { value: 60, customer: alice, items: [{ sku: 'S1', quantity: 1, price: 60 }], shippingCost: 8 }),
    order('o3', '2026-01-20T10:00:00Z', { value: 200, paymentGateway: 'paypal', customer: bob, refunds: [{ amount: 50, processedAt: '2026-03-10T10:00:00.000Z' }] }),
    order('o4', '2026-01-25T10:00:00Z', { value: 40, financialStatus: 'pending', customer: carol }),
    order('o5', '2026-02-03T10:00:00Z', { value: 80, customer: carol }),
    order('o6', '2025-12-15T10:00:00Z', { value: 30, sourceName: 'pos', customer: dave }),
    order('o7', '2026-01-15T10:00:00Z', { value: 70, customer: dave }),
    order('o8', '2026-02-10T10:00:00Z', { value: 50, currency: 'EUR', paymentGateway: 'bank' }),
  ],
};

const ALL = [
  'orders.customers_cohort',
  'orders.ltv_cohort_gross_revenue',
  'orders.ltv_cohort_net_revenue',
  'orders.avg_order_value_cohort',
  'orders.cohort_retention_percent',
  'orders.cohort_cm1',
  'orders.cohort_cm2',
];
const NOW = '2026-06-15T00:00:00Z';
const BODY = { granularity: 'month', measures: ALL, dateRange: { start: '2026-01-01', end: '2026-02-28' }, periods: 4 };
const at = (points: Array<Record<string, unknown>>, dt: string, period: number) => points.find((point) => point.dt === dt && point.period === period);
const values = (point: Record<string, unknown> | undefined) => Object.fromEntries(ALL.map((measure) => [measure.replace('orders.', ''), point?.[measure]]));

describe('cohort analysis on a hand-built pixel', () => {
  it('gives exact figures per cohort and period with the default order settings', async () => {
    const result = await cohortQuery(pixel, BODY, NOW);
    const points = result.data.primary;
    expect(points).toHaveLength(10);
    expect(at(points, '2026-01', 0)).toMatchObject({
      dt: '2026-01',
      start: '2026-01-01T00:00:00.000+00:00',
      end: '2026-01-31T23:59:59.999+00:00',
      period: 0,
      periodStart: '2026-01-01T00:00:00.000+00:00',
      periodEnd: '2026-01-31T23:59:59.999+00:00',
      complete: true,
    });
    // Period 0: o1 (cogs 2 × 10, the S1 cost through Jan 10; shipping 5; Stripe 2 % of 100 + 0.30; handling 1)
    // and o3 (no items: 40 % of 200; shipping 5; PayPal has no fee; handling 1).
    expect(values(at(points, '2026-01', 0))).toEqual({
      customers_cohort: 2, ltv_cohort_gross_revenue: 150, ltv_cohort_net_revenue: 150, avg_order_value_cohort: 150, cohort_retention_percent: 100, cohort_cm1: 100, cohort_cm2: 92.85,
    });
    expect(values(at(points, '2026-01', 1))).toEqual({
      customers_cohort: 2, ltv_cohort_gross_revenue: 150, ltv_cohort_net_revenue: 150, avg_order_value_cohort: null, cohort_retention_percent: 0, cohort_cm1: 100, cohort_cm2: 92.85,
    });
    // bob's refund lands in period 2 (March), when it was processed.
    expect(values(at(points, '2026-01', 2))).toEqual({
      customers_cohort: 2, ltv_cohort_gross_revenue: 150, ltv_cohort_net_revenue: 125, avg_order_value_cohort: null, cohort_retention_percent: 0, cohort_cm1: 75, cohort_cm2: 67.85,
    });
    // alice's second order, three periods later: S1 at 12 from Jan 11; her stated shipping 8; Stripe 1.2 + 0.3; handling 1.
    expect(values(at(points, '2026-01', 3))).toEqual({
      customers_cohort: 2, ltv_cohort_gross_revenue: 180, ltv_cohort_net_revenue: 155, avg_order_value_cohort: 60, cohort_retention_percent: 50, cohort_cm1: 99, cohort_cm2: 86.6,
    });
    expect(at(points, '2026-01', 4)).toMatchObject({ period: 4, periodStart: '2026-05-01T00:00:00.000+00:00', complete: true, 'orders.cohort_retention_percent': 0 });
    // February: carol's o5 (40 % of 80; Stripe 1.6 + 0.3) and o8 (50 EUR = 62.5 USD; 40 % of it; no fee).
    expect(values(at(points, '2026-02', 0))).toEqual({
      customers_cohort: 2, ltv_cohort_gross_revenue: 71.25, ltv_cohort_net_revenue: 71.25, avg_order_value_cohort: 71.25, cohort_retention_percent: 100, cohort_cm1: 42.75, cohort_cm2: 35.8,
    });
    expect(at(points, '2026-02', 4)).toMatchObject({ periodStart: '2026-06-01T00:00:00.000+00:00', periodEnd: '2026-06-30T23:59:59.999+00:00', complete: false });
  });

  it('sums every cohort at its last complete period in measureDetails', async () => {
    const result = await cohortQuery(pixel, BODY, NOW);
    const details = Object.fromEntries(result.measureDetails.map((detail) => [detail.measure, detail]));
    // January at period 4 (May), February at period 3 (May): June is not over.
    expect(details['orders.customers_cohort']).toMatchObject({ success: true, primarySum: 4, primaryAvg: 2, isAverage: false, compareSum: null });
    expect(details['orders.ltv_cohort_gross_revenue']).toMatchObject({ primarySum: 125.625, primaryAvg: 125.625, isAverage: true });
    expect(details['orders.ltv_cohort_net_revenue']!.primarySum).toBe(113.125);
    expect(details['orders.cohort_cm1']!.primarySum).toBe(70.875);
    expect(details['orders.cohort_retention_percent']).toMatchObject({ primarySum: 0, isPercentage: true });
    expect(details['orders.avg_order_value_cohort']!.primarySum).toBeNull();
    expect(result).toMatchObject({ granularity: 'month', dimensions: [], compareDateRange: null, periods: 4, timezone: 'UTC', currency: 'USD', data: { compare: [] } });
  });

  it('books refunds on the order date with order_date (and its alias original_order_date)', async () => {
    for (const refundDateAttribution of ['order_date', 'original_order_date']) {
      const points = (await cohortQuery(pixel, { ...BODY, orderSettings: { refundDateAttribution } }, NOW)).data.primary;
      expect(at(points, '2026-01', 0)).toMatchObject({ 'orders.ltv_cohort_net_revenue': 125, 'orders.cohort_cm1': 75 });
      expect(at(points, '2026-01', 2)).toMatchObject({ 'orders.ltv_cohort_net_revenue': 125 });
    }
  });

  it('makes a pending first order count with countPendingOrders, moving its customer to that cohort', async () => {
    const without = (await cohortQuery(pixel, BODY, NOW)).data.primary;
    expect(at(without, '2026-01', 0)!['orders.customers_cohort']).toBe(2);
    const withPending = (await cohortQuery(pixel, { ...BODY, orderSettings: { countPendingOrders: true } }, NOW)).data.primary;
    // carol is new in January (o4, 40), and her o5 is a repeat order in period 1.
    expect(values(at(withPending, '2026-01', 0))).toMatchObject({ customers_cohort: 3, ltv_cohort_gross_revenue: 113.333333, cohort_retention_percent: 100 });
    expect(values(at(withPending, '2026-01', 1))).toMatchObject({ ltv_cohort_gross_revenue: 140, avg_order_value_cohort: 80, cohort_retention_percent: 33.333333 });
    expect(at(withPending, '2026-02', 0)!['orders.customers_cohort']).toBe(1);
  });

  it('lets an exclusion filter that drops a first order change who is new', async () => {
    const noPos = { name: 'No POS', enabled: true, conditionGroups: [{ logic: 'and', conditions: [{ field: 'sourceName', operator: 'equals', value: 'pos' }] }] };
    const points = (await cohortQuery(pixel, { ...BODY, orderSettings: { exclusionFilters: [noPos] } }, NOW)).data.primary;
    // dave's POS order in December no longer counts: his January order makes him new in the window.
    expect(values(at(points, '2026-01', 0))).toMatchObject({ customers_cohort: 3, ltv_cohort_gross_revenue: 123.333333 });
  });

  it('picks the cohorts by their first order with filters, and the legacy viewFilters alike', async () => {
    const filter = { field: 'orders.payment_gateway', op: 'equals', value: 'stripe' };
    for (const body of [{ filters: filter }, { viewFilters: [filter] }, { viewFilters: filter }]) {
      const points = (await cohortQuery(pixel, { ...BODY, ...body }, NOW)).data.primary;
      // alice (o1, Stripe) in January with her later order; bob (PayPal) is not picked. carol in February, not o8 (bank).
      expect(values(at(points, '2026-01', 3))).toMatchObject({ customers_cohort: 1, ltv_cohort_gross_revenue: 160, cohort_retention_percent: 100 });
      expect(at(points, '2026-02', 0)!['orders.customers_cohort']).toBe(1);
    }
  });

  it('reports periods that have started, the running one as incomplete, and none of a cohort still to come', async () => {
    const points = (await cohortQuery(pixel, { ...BODY, dateRange: { start: '2026-01-01', end: '2026-12-31' }, periods: 12 }, '2026-03-15T00:00:00Z')).data.primary;
    expect(points.map((point) => `${point.dt}/${point.period}/${point.complete}`)).toEqual(['2026-01/0/true', '2026-01/1/true', '2026-01/2/false', '2026-02/0/true', '2026-02/1/false', '2026-03/0/false']);
  });

  it('buckets weeks from Monday in the request time zone', async () => {
    const body = { granularity: 'week', measures: ['orders.customers_cohort'], dateRange: { start: '2026-01-05', end: '2026-01-18' }, periods: 1, timezone: 'Asia/Tokyo' };
    const points = (await cohortQuery(pixel, body, NOW)).data.primary;
    // o1 at 23:30 UTC on Saturday Jan 10 is Sunday 08:30 in Tokyo: still the week of Monday Jan 5; o7 in the next.
    expect(points.map((point) => [point.dt, point.period, point['orders.customers_cohort']])).toEqual([
      ['2026-01-05', 0, 1],
      ['2026-01-05', 1, 1],
      ['2026-01-12', 0, 0],
      ['2026-01-12', 1, 0],
    ]);
  });

  it('fails only the margins when a cost amount has no exchange rate', async () => {
    const result = await cohortQuery({ ...pixel, skuCosts: [{ sku: 'S1', cost: 900, currency: 'JPY', effectiveFrom: '2025-01-01' }] }, BODY, NOW);
    expect(result.measureDetails.map((detail) => [detail.measure, detail.success])).toEqual(ALL.map((measure) => [measure, !measure.includes('_cm')]));
    expect(at(result.data.primary, '2026-01', 0)).toHaveProperty('orders.ltv_cohort_gross_revenue', 150);
  });

  it('omits money measures whose exchange rate is missing, and says why', async () => {
    const result = await cohortQuery({ ...pixel, fx: [] }, BODY, NOW);
    const gross = result.measureDetails.find((detail) => detail.measure === 'orders.ltv_cohort_gross_revenue')!;
    expect(gross).toMatchObject({ success: false, reason: expect.stringContaining('EUR') });
    expect(at(result.data.primary, '2026-01', 0)).not.toHaveProperty('orders.ltv_cohort_gross_revenue');
    expect(at(result.data.primary, '2026-01', 0)).toHaveProperty('orders.customers_cohort', 2);
  });
});

describe('cohort invariants', () => {
  const day = fc.integer({ min: 0, max: 364 }).map((offset) => new Date(Date.UTC(2025, 6, 1) + offset * 86_400_000 + 3_600_000).toISOString());
  const orders = fc.array(
    fc.record({ day, value: fc.integer({ min: 0, max: 500 }), who: fc.integer({ min: 0, max: 15 }), status: fc.constantFrom('paid', 'pending', 'voided', 'refunded') }),
    { maxLength: 60 },
  );

  it('has period-0 retention 100 and cumulative measures that never decrease when nothing is refunded', async () => {
    await fc.assert(
      fc.asyncProperty(orders, fc.constantFrom('week', 'month'), fc.boolean(), async (drawn, granularity, countPendingOrders) => {
        const built: MemoryPixel = {
          fx: [],
          events: [],
          ads: [],
          orders: drawn.map((entry, i) =>
            order(`o${i}`, entry.day, { value: entry.value, financialStatus: entry.status as 'paid', customer: { userIds: [`c${entry.who}`], emailHashes: [], phoneHashes: [] } }),
          ),
        };
        const body = { granularity, measures: ALL, dateRange: { start: '2025-08-01', end: '2026-01-31' }, periods: 6, orderSettings: { countPendingOrders } };
        const points = (await cohortQuery(built, body, '2026-09-01T00:00:00Z')).data.primary;
        const byCohort = new Map<string, Array<Record<string, unknown>>>();
        for (const point of points) byCohort.set(point.dt as string, [...(byCohort.get(point.dt as string) ?? []), point]);
        for (const series of byCohort.values()) {
          const size = series[0]!['orders.customers_cohort'] as number;
          if (size === 0) continue;
          expect(series[0]!['orders.cohort_retention_percent']).toBe(100);
          for (let k = 1; k < series.length; k++) {
            expect(series[k]!['orders.customers_cohort']).toBe(size);
            for (const measure of ['orders.ltv_cohort_gross_revenue', 'orders.ltv_cohort_net_revenue', 'orders.cohort_cm1', 'orders.cohort_cm2']) {
              expect(series[k]![measure] as number).toBeGreaterThanOrEqual(series[k - 1]![measure] as number);
            }
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
