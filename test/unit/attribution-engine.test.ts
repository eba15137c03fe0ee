import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ATTRIBUTION_MODELS, ATTRIBUTION_WINDOWS } from '../../shared/attribution/attribution-engine';
import { queryAttributionRequestSchema } from '../../shared/schemas/query-attribution';
import { attribution, visit, type AttributionPixel } from '../support/attribution-fixtures';
import { ad, hour, order } from '../support/query-fixtures';

const RANGE = { dateRange: { start: '2026-03-01', end: '2026-03-31' } };
const META_AD = 'https://shop.example/?utm_source=facebook&utm_medium=paid&utm_campaign=spring&campaign_id=c1&adset_id=s1&ad_id=ad1&fbclid=x';
const EMAIL = 'https://shop.example/?utm_source=Klaviyo&utm_medium=email&utm_campaign=march';
const GOOGLE = 'https://www.google.com/search?q=shoes';
const ORDER_AT = '2026-03-20T12:00:00Z';

/**
 * One buyer, stitched anonymous id → email → user id: three touchpoints 14 days, 7 days and 0 days
 * before the order (the last one exactly at the order time), one exactly at the 30-day window's
 * start and one just after the order (neither may take credit). A second order without any journey.
 */
function pixel(): AttributionPixel {
  const anon = { anonymousId: 'A1' };
  return {
    orders: [
      order('o1', ORDER_AT, { value: 100, currency: 'USD', customer: { userIds: ['u1'], emailHashes: [], phoneHashes: [] } }),
      order('o2', '2026-03-15T09:00:00Z', { value: 50, currency: 'EUR' }),
    ],
    events: [
      visit('2026-02-18T12:00:00Z', anon, 'https://shop.example/?utm_source=edge'),
      visit('2026-03-06T12:00:00Z', anon, META_AD),
      visit('2026-03-13T12:00:00Z', anon, 'https://shop.example/shoes', { referrer: GOOGLE }),
      visit(ORDER_AT, anon, EMAIL),
      visit('2026-03-20T12:00:01Z', anon, 'https://shop.example/?utm_source=after'),
      // The stitching: a newsletter signup ties the browser to an email, a login the email to the account.
      visit('2026-03-07T08:00:00Z', { anonymousId: 'A1', emailHashes: ['e'.repeat(64)] }, 'https://shop.example/signup', { name: 'sign_up' }),
      visit('2026-03-20T11:00:00Z', { emailHashes: ['e'.repeat(64)], userIds: ['u1'] }, 'https://shop.example/account', { name: 'login' }),
    ],
    ads: [
      { ad: ad('meta', 'ad1', 'EUR', { campaignId: 'c1', adsetId: 's1' }), hours: [hour('2026-03-10T10:00:00Z', 20, 1000, 10)] },
      { ad: ad('google', 'g-ad', 'USD', { campaignId: 'g1', adsetId: 'gs1' }), hours: [hour('2026-03-11T10:00:00Z', 10, 500, 5)] },
    ],
    fx: [{ date: '2026-01-01', rates: { USD: 1, EUR: 0.5 } }],
  };
}

const pointsBy = (points: Array<Record<string, unknown>>, key: string, measure: string) => Object.fromEntries(points.map((point) => [String(point[key]), point[measure]]));

describe('attribution models on a hand-built journey', () => {
  it('credits each model exactly, the unattributed order to null, in the requested currency', async () => {
    const results = await attribution(pixel(), { ...RANGE, attributionModel: [...ATTRIBUTION_MODELS], measures: ['attribution.orders', 'attribution.revenue'] });
    const byModel = Object.fromEntries(results.map((result) => [result.attributionModel, pointsBy(result.data.primary, 'source', 'attribution.revenue')]));
    // o2 (50 EUR at 0.5 EUR per USD = 100 USD) has no journey: null.
    expect(byModel.first_click).toEqual({ null: 100, meta: 100 });
    expect(byModel.last_click).toEqual({ null: 100, klaviyo: 100 });
    expect(byModel.any_click).toEqual({ null: 100, meta: 100, organic_search: 100, klaviyo: 100 });
    expect(byModel.linear).toEqual({ null: 100, meta: 33.333333, organic_search: 33.333333, klaviyo: 33.333333 });
    // Weights 2^-2, 2^-1, 2^0 over their sum 1.75.
    expect(byModel.time_decay).toEqual({ null: 100, meta: 14.285714, organic_search: 28.571429, klaviyo: 57.142857 });
    expect(byModel.position_based).toEqual({ null: 100, meta: 40, organic_search: 20, klaviyo: 40 });
    const linear = results.find((result) => result.attributionModel === 'linear')!;
    expect(linear.measureDetails.find((detail) => detail.measure === 'attribution.orders')!.primarySum).toBe(2);
    expect(linear).toMatchObject({ attributionWindow: 30, dimension: 'source', granularity: 'none', timezone: 'UTC', currency: 'USD', compareDateRange: null });
    expect(linear.data.primary[0]).toMatchObject({ dt: '2026-03-01', start: '2026-03-01T00:00:00.000+00:00', end: '2026-03-31T23:59:59.999+00:00' });
  });

  it('takes one touchpoint whole and two half each under position_based; window 7 drops the older ones', async () => {
    const results = await attribution(pixel(), { ...RANGE, attributionModel: 'position_based', attributionWindow: 7 });
    // Only the search visit (7 days earlier is outside (order − 7 d, order]) ... exactly at the start: excluded; the email visit remains.
    expect(pointsBy(results[0]!.data.primary, 'source', 'attribution.orders')).toEqual({ null: 1, klaviyo: 1 });
    const fourteen = await attribution(pixel(), { ...RANGE, attributionModel: 'position_based', attributionWindow: 14 });
    expect(pointsBy(fourteen[0]!.data.primary, 'source', 'attribution.orders')).toEqual({ null: 1, organic_search: 0.5, klaviyo: 0.5 });
  });

  it('splits by UTM values and ad ids; a touchpoint without the value groups under null', async () => {
    const [campaign] = await attribution(pixel(), { ...RANGE, attributionModel: 'linear', dimension: 'utm_campaign', measures: ['attribution.orders'] });
    expect(pointsBy(campaign!.data.primary, 'utm_campaign', 'attribution.orders')).toEqual({ null: 1.333333, spring: 0.333333, march: 0.333333 });
    const [adId] = await attribution(pixel(), { ...RANGE, attributionModel: 'first_click', dimension: 'channel.ad_id', measures: ['attribution.orders'] });
    expect(pointsBy(adId!.data.primary, 'channel.ad_id', 'attribution.orders')).toEqual({ null: 1, ad1: 1 });
  });

  it('joins spend by campaign: ROAS and CPA per value, campaigns with spend and no orders included', async () => {
    const [result] = await attribution(pixel(), {
      ...RANGE,
      attributionModel: 'first_click',
      dimension: 'channel.campaign_id',
      measures: ['attribution.orders', 'attribution.revenue', 'channel.spend', 'attribution.roas', 'attribution.cpa'],
    });
    const points = Object.fromEntries(result!.data.primary.map((point) => [String(point['channel.campaign_id']), point]));
    // 20 EUR = 40 USD spent on c1, which earned the 100 USD order.
    expect(points.c1).toMatchObject({ 'attribution.orders': 1, 'attribution.revenue': 100, 'channel.spend': 40, 'attribution.roas': 2.5, 'attribution.cpa': 40 });
    expect(points.g1).toMatchObject({ 'attribution.orders': 0, 'attribution.revenue': 0, 'channel.spend': 10, 'attribution.roas': 0, 'attribution.cpa': null });
    expect(points.null).toMatchObject({ 'attribution.orders': 1, 'channel.spend': 0, 'attribution.roas': null });
    const roas = result!.measureDetails.find((detail) => detail.measure === 'attribution.roas')!;
    expect(roas).toMatchObject({ success: true, isAverage: true, primarySum: 4 }); // 200 USD over 50 USD spent
  });

  it('joins platform spend by source, and counts new customers over their whole history', async () => {
    const data = pixel();
    data.orders.push(order('o0', '2026-02-01T00:00:00Z', { value: 10, customer: { userIds: ['u1'], emailHashes: [], phoneHashes: [] } }));
    const [result] = await attribution(data, { ...RANGE, attributionModel: 'first_click', measures: ['attribution.new_customer_orders', 'channel.spend', 'attribution.roas'] });
    const points = Object.fromEntries(result!.data.primary.map((point) => [String(point.source), point]));
    // o1 is u1's second order: not new. o2 has no customer: its own first order.
    expect(points.meta).toMatchObject({ 'attribution.new_customer_orders': 0, 'channel.spend': 40, 'attribution.roas': 2.5 });
    expect(points.google).toMatchObject({ 'channel.spend': 10 });
    expect(points.null).toMatchObject({ 'attribution.new_customer_orders': 1 });
  });

  it('reports an amount it cannot convert in measureDetails, and keeps the rest', async () => {
    const data = pixel();
    data.orders.push(order('o3', '2026-03-16T00:00:00Z', { value: 5, currency: 'JPY' }));
    const [result] = await attribution(data, { ...RANGE, measures: ['attribution.orders', 'attribution.revenue'] });
    expect(result!.measureDetails.map((detail) => [detail.measure, detail.success])).toEqual([
      ['attribution.orders', true],
      ['attribution.revenue', false],
    ]);
    expect(result!.data.primary.every((point) => !('attribution.revenue' in point))).toBe(true);
  });

  it('buckets orders by their date in the zone, and answers a comparison range per model', async () => {
    const [result] = await attribution(pixel(), {
      dateRange: { start: '2026-03-15', end: '2026-03-21' },
      compareDateRange: { start: '2026-03-01', end: '2026-03-07' },
      granularity: 'day',
      timezone: 'Europe/Paris',
      attributionModel: 'first_click',
      measures: ['attribution.orders'],
    });
    expect(result!.data.primary.map((point) => [point.dt, point.source, point['attribution.orders']])).toEqual([
      ['2026-03-15', null, 1],
      ['2026-03-20', 'meta', 1],
    ]);
    expect(result!.data.compare).toEqual([]);
    expect(result!.compareDateRange).toEqual({ start: '2026-03-01', end: '2026-03-07' });
  });
});

describe('query-attribution request validation', () => {
  const parse = (body: Record<string, unknown>) => queryAttributionRequestSchema.safeParse({ pixelId: 'px', ...RANGE, ...body });
  const messages = (body: Record<string, unknown>) => {
    const result = parse(body);
    return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  };

  it('applies the documented defaults', () => {
    const result = parse({});
    expect(result.success && result.data).toMatchObject({ attributionModel: ['last_click'], attributionWindow: 30, dimension: 'source', granularity: 'none', measures: ['attribution.orders', 'attribution.revenue'], timezone: 'UTC', currency: 'USD' });
  });

  it.each([
    [{ attributionWindow: 3 }, 'attributionWindow'],
    [{ attributionModel: 'data_driven' }, 'attributionModel'],
    [{ attributionModel: ['linear', 'linear'] }, 'attributionModel'],
    [{ attributionModel: [] }, 'attributionModel'],
    [{ dimension: 'orders.source_name' }, 'dimension'],
    [{ granularity: 'hour' }, 'granularity'],
    [{ measures: ['orders.orders'] }, 'measures.0'],
    [{ measures: [] }, 'measures'],
    [{ filters: { field: 'events.name', op: 'equals', value: 'x' } }, 'filters.field'],
    [{ extra: 1 }, ''],
    [{ dateRange: { start: '2026-03-10', end: '2026-03-01' } }, 'dateRange.end'],
    [{ dateRange: { start: '2025-01-01', end: '2026-03-01' } }, 'dateRange'],
    [{ compareDateRange: { start: '2026-03-30', end: '2026-04-05' } }, 'compareDateRange'],
    [{ orderSettings: { countPendingOrders: 'yes' } }, 'orderSettings.countPendingOrders'],
  ])('rejects %j at %s', (body, path) => {
    expect(messages(body).some((message) => message.startsWith(`${path}:`))).toBe(true);
  });

  it('names the measure and the dimension when spend cannot be joined', () => {
    expect(messages({ dimension: 'utm_campaign', measures: ['attribution.orders', 'attribution.roas'] })).toEqual([
      "measures.1: Measure 'attribution.roas' needs ad spend, which cannot be joined to dimension 'utm_campaign'; use dimension source, channel.campaign_id, channel.adset_id or channel.ad_id",
    ]);
    expect(parse({ dimension: 'channel.adset_id', measures: ['channel.spend'] }).success).toBe(true);
  });

  it('accepts orders filters of the catalog in context query_attribution', () => {
    expect(parse({ filters: { and: [{ field: 'orders.source_name', op: 'equals', value: 'web' }, { field: 'orders.customer_type', op: 'equals', value: 'new' }] } }).success).toBe(true);
  });
});

const DAY = 86_400_000;
const BASE = Date.parse('2026-03-01T00:00:00Z');

/** One order per person, touchpoints before, inside and after its window (the outside ones say so in their source). */
const journeys = fc.array(
  fc.record({
    orderDay: fc.integer({ min: 0, max: 29 }),
    orderMinute: fc.integer({ min: 0, max: 1439 }),
    value: fc.integer({ min: 0, max: 10_000 }).map((cents) => cents / 100),
    status: fc.constantFrom('paid', 'paid', 'refunded', 'pending', 'voided'),
    touches: fc.array(fc.record({ offsetMinutes: fc.integer({ min: -100 * 1440, max: 3 * 1440 }), source: fc.constantFrom('fb', 'google', 'klaviyo', 'newsletter') }), { maxLength: 6 }),
  }),
  { minLength: 1, maxLength: 8 },
);

describe('conservation (fast-check)', () => {
  it('every model but any_click credits exactly the counted orders and revenue; any_click each order at least once; nothing outside the window', async () => {
    await fc.assert(
      fc.asyncProperty(journeys, fc.constantFrom(...ATTRIBUTION_WINDOWS), async (people, window) => {
        const data: AttributionPixel = { orders: [], events: [] };
        let counted = 0;
        let revenue = 0;
        people.forEach((person, i) => {
          const at = BASE + person.orderDay * DAY + person.orderMinute * 60_000;
          data.orders.push(order(`o${i}`, new Date(at).toISOString(), { value: person.value, financialStatus: person.status as never, customer: { userIds: [`u${i}`], emailHashes: [], phoneHashes: [] } }));
          if (person.status === 'paid' || person.status === 'refunded') {
            counted++;
            revenue += person.value;
          }
          data.events.push(visit(new Date(at).toISOString(), { anonymousId: `a${i}`, userIds: [`u${i}`] }, 'https://shop.example/thanks'));
          for (const touch of person.touches) {
            const touchAt = at + touch.offsetMinutes * 60_000;
            const inside = touchAt > at - window * DAY && touchAt <= at;
            data.events.push(visit(new Date(touchAt).toISOString(), { anonymousId: `a${i}` }, `https://shop.example/?utm_source=${inside ? touch.source : 'outside'}`));
          }
        });
        const results = await attribution(data, { ...RANGE, attributionWindow: window, attributionModel: [...ATTRIBUTION_MODELS], measures: ['attribution.orders', 'attribution.revenue'] });
        for (const result of results) {
          const sum = (measure: string) => result.data.primary.reduce((total, point) => total + (point[measure] as number), 0);
          expect(result.data.primary.some((point) => point.source === 'outside')).toBe(false);
          if (result.attributionModel === 'any_click') {
            expect(sum('attribution.orders')).toBeGreaterThanOrEqual(counted - 1e-6);
          } else {
            expect(sum('attribution.orders')).toBeCloseTo(counted, 4);
            expect(sum('attribution.revenue')).toBeCloseTo(revenue, 2);
          }
        }
      }),
      { numRuns: 150 },
    );
  });
});
