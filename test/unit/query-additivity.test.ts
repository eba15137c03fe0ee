import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findMeasure, MEASURES } from '../../shared/catalog/measures';
import { ad, event, hour, order, query, type MemoryPixel } from '../support/query-fixtures';

/** Measures whose value over a range is the sum of their values over its days. */
const ADDITIVE = MEASURES.filter((measure) => measure.contexts.includes('query') && !measure.isAverage)
  .map((measure) => measure.id)
  .filter((id) => id !== 'orders.customers' && id !== 'events.visitors');

const START = Date.parse('2026-03-05T00:00:00Z');
const SPAN = 12 * 86_400_000;
const instant = fc.integer({ min: START, max: START + SPAN - 1 }).map((ms) => new Date(ms).toISOString());
const hourInstant = fc.integer({ min: 0, max: 12 * 24 - 1 }).map((h) => new Date(START + h * 3_600_000).toISOString());
const identity = fc.record({ userIds: fc.array(fc.constantFrom('u1', 'u2'), { maxLength: 1 }), emailHashes: fc.array(fc.constantFrom('e1', 'e2', 'e3'), { maxLength: 1 }), phoneHashes: fc.constant<string[]>([]) });

const pixelArbitrary: fc.Arbitrary<MemoryPixel> = fc.record({
  orders: fc.array(
    fc.record({
      at: instant,
      value: fc.option(fc.integer({ min: 0, max: 500 })),
      currency: fc.constantFrom('USD', 'EUR'),
      status: fc.constantFrom('paid', 'pending', 'voided', 'refunded', 'partially_refunded' as const),
      source: fc.constantFrom('web', 'pos'),
      refunds: fc.array(fc.record({ amount: fc.integer({ min: 1, max: 50 }), processedAt: instant }), { maxLength: 2 }),
      customer: identity,
      items: fc.option(fc.array(fc.record({ sku: fc.constantFrom('A', 'B'), quantity: fc.integer({ min: 1, max: 3 }), price: fc.integer({ min: 0, max: 100 }) }), { minLength: 1, maxLength: 3 }), { nil: undefined }),
    }),
    { maxLength: 25 },
  ).map((rows) =>
    rows.map((row, i) =>
      order(`o${i}`, row.at, { value: row.value, currency: row.currency, financialStatus: row.status, sourceName: row.source, refunds: row.refunds, customer: row.customer, ...(row.items ? { items: row.items } : {}) }),
    ),
  ),
  // Costs of every kind, so the profit measures are not all zero (issue P9).
  costSettings: fc.constant({ defaultCogsPercent: 30, handlingFeePerItem: 0.5, defaultShippingCostPerOrder: 4, gatewayFees: [{ gateway: 'stripe', percent: 2, fixed: 0.3 }], currency: 'EUR' }),
  skuCosts: fc.constant([{ sku: 'A', cost: 5, currency: 'USD', effectiveFrom: '2026-03-08' }]),
  events: fc
    .array(fc.record({ at: instant, name: fc.constantFrom('page_view', 'add_to_cart', 'begin_checkout', 'purchase', 'other'), ids: fc.array(fc.constantFrom('f:1', 'e:e1', 'u:u2'), { maxLength: 2 }) }), { maxLength: 25 })
    .map((rows) => rows.map((row, i) => event(`e${i}`, row.at, row.name, row.ids))),
  ads: fc.array(fc.record({ at: hourInstant, spend: fc.integer({ min: 0, max: 40 }), impressions: fc.integer({ min: 0, max: 500 }), clicks: fc.integer({ min: 0, max: 20 }) }), { maxLength: 10 }).map((hours) => [
    { ad: ad('meta', 'm1', 'EUR'), hours: hours.map((row) => hour(row.at, row.spend, row.impressions, row.clicks)).filter((row, i, all) => all.findIndex((other) => other.hour === row.hour) === i).sort((a, b) => a.hour - b.hour) },
  ]),
  fx: fc.constant([{ date: '2026-01-01', rates: { USD: 1, EUR: 0.8 } }]),
});

describe('day buckets add up to the whole range', () => {
  it('for every additive measure, in any zone, under any order settings', async () => {
    await fc.assert(
      fc.asyncProperty(
        pixelArbitrary,
        fc.constantFrom('UTC', 'America/New_York', 'Asia/Kolkata', 'Pacific/Chatham'),
        fc.record({ countPendingOrders: fc.boolean(), countVoidedOrders: fc.boolean(), refundDateAttribution: fc.constantFrom('refund_date', 'order_date') }),
        async (pixel, timezone, orderSettings) => {
          for (let first = 0; first < ADDITIVE.length; first += 30) {
            const body = { measures: ADDITIVE.slice(first, first + 30), dateRange: { start: '2026-03-06', end: '2026-03-15' }, timezone, orderSettings };
            const total: Record<string, unknown> = (await query(pixel, body)).data.primary[0] ?? {};
            const days = (await query(pixel, { ...body, granularity: 'day' })).data.primary;
            for (const measure of body.measures) {
              expect(findMeasure(measure)!.isAverage).toBe(false);
              const summed = days.reduce((sum, point) => sum + ((point[measure] as number | undefined) ?? 0), 0);
              expect(summed, measure).toBeCloseTo((total[measure] as number | undefined) ?? 0, 5);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
