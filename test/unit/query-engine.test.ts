import { describe, expect, it } from 'vitest';
import { ad, event, hour, order, query, type MemoryPixel } from '../support/query-fixtures';

/*
 * The hand-built pixel of the README's definitions. Rates are units per 1 USD: 80 EUR = 100 USD,
 * 10 GBP = 20 USD. Customers: alice {o1, o2}, bob {o3}, carol {o4}, dave {o5, o6} (o5 before the
 * range), erin {o8}, and o7 without identity.
 */
const alice = { userIds: [], emailHashes: ['alice'], phoneHashes: [] };
const dave = { userIds: ['dave'], emailHashes: ['dave'], phoneHashes: [] };
const pixel: MemoryPixel = {
  fx: [{ date: '2026-01-01', rates: { USD: 1, EUR: 0.8, GBP: 0.5 } }],
  orders: [
    order('o1', '2026-03-01T10:00:00Z', { value: 100, tags: ['vip'], customer: alice, refunds: [{ amount: 20, processedAt: '2026-03-03T12:00:00.000Z' }] }),
    order('o2', '2026-03-02T10:00:00Z', { value: 80, currency: 'EUR', sourceName: 'pos', paymentGateway: 'paypal', customer: alice }),
    order('o3', '2026-03-02T15:00:00Z', { value: 50, tags: ['vip', 'sale'], financialStatus: 'pending', customer: { userIds: ['bob'], emailHashes: [], phoneHashes: [] } }),
    order('o4', '2026-03-03T09:00:00Z', { value: 30, financialStatus: 'voided', customer: { userIds: [], emailHashes: [], phoneHashes: ['carol'] } }),
    order('o5', '2026-02-20T10:00:00Z', { value: 40, customer: dave, refunds: [{ amount: 10, processedAt: '2026-03-02T08:00:00.000Z' }] }),
    order('o6', '2026-03-03T20:00:00Z', { value: 60, customer: { userIds: [], emailHashes: ['dave'], phoneHashes: [] } }),
    order('o7', '2026-03-03T21:00:00Z', { value: 10, currency: 'GBP', tags: ['test'], financialStatus: 'partially_refunded', refunds: [{ amount: 5, processedAt: '2026-03-04T00:30:00.000Z' }] }),
    order('o8', '2026-03-01T11:00:00Z', { value: 200, sourceName: 'wholesale', paymentGateway: 'bank', financialStatus: 'refunded', customer: { userIds: ['erin'], emailHashes: [], phoneHashes: [] }, refunds: [{ amount: 200, processedAt: '2026-03-01T12:00:00.000Z' }] }),
  ],
  events: [
    event('ev1', '2026-03-01T09:00:00Z', 'page_view', ['f:fb1'], ['google', 'cpc', 'spring']),
    event('ev2', '2026-03-01T09:05:00Z', 'add_to_cart', ['f:fb1', 'e:alice']),
    event('ev3', '2026-03-01T09:10:00Z', 'begin_checkout', ['e:alice']),
    event('ev4', '2026-03-01T09:15:00Z', 'purchase', ['e:alice'], ['google']),
    event('ev5', '2026-03-02T10:00:00Z', 'page_view', [], ['meta', 'paid', 'summer']),
    event('ev6', '2026-03-02T11:00:00Z', 'initiate_checkout', ['u:bob']),
    event('ev7', '2026-03-02T12:00:00Z', 'custom_thing', ['u:bob', 'f:fb1']),
    event('ev8', '2026-03-03T13:00:00Z', 'page_view', ['p:zed'], ['google', 'cpc', 'spring']),
  ],
  ads: [
    { ad: ad('meta', 'm1', 'EUR'), hours: [hour('2026-03-01T00:00:00Z', 8, 1000, 10), hour('2026-03-02T05:00:00Z', 16, 1000, 30)] },
    { ad: ad('google', 'g1', 'USD'), hours: [hour('2026-03-03T10:00:00Z', 50, 500, 5)] },
  ],
};

const MARCH = { start: '2026-03-01', end: '2026-03-03' };
const byDt = (points: Array<Record<string, unknown>>) => Object.fromEntries(points.map((point) => [point.dt, point]));
const detail = (result: Awaited<ReturnType<typeof query>>, measure: string) => result.measureDetails.find((entry) => entry.measure === measure)!;

const ORDER_MEASURES = [
  'orders.orders',
  'orders.total_revenue',
  'orders.refunds',
  'orders.net_revenue',
  'orders.average_order_value',
  'orders.customers',
  'orders.new_customers',
  'orders.new_customer_revenue',
  'orders.returning_customer_orders',
  'orders.returning_customer_revenue',
];

describe('orders measures with the default order settings', () => {
  it('gives exact figures per day and over the range', async () => {
    const result = await query(pixel, { measures: ORDER_MEASURES, granularity: 'day', dateRange: MARCH });
    const days = byDt(result.data.primary);
    expect(days['2026-03-01']).toEqual({
      dt: '2026-03-01',
      start: '2026-03-01T00:00:00.000+00:00',
      end: '2026-03-01T23:59:59.999+00:00',
      'orders.orders': 2,
      'orders.total_revenue': 300,
      'orders.refunds': 200,
      'orders.net_revenue': 100,
      'orders.average_order_value': 150,
      'orders.customers': 2,
      'orders.new_customers': 2,
      'orders.new_customer_revenue': 300,
      'orders.returning_customer_orders': 0,
      'orders.returning_customer_revenue': 0,
    });
    // o2 (80 EUR = 100 USD) is alice's second order; dave's refund of o5 (placed before the range) lands on its processed day.
    expect(days['2026-03-02']).toMatchObject({ 'orders.orders': 1, 'orders.total_revenue': 100, 'orders.refunds': 10, 'orders.net_revenue': 90, 'orders.new_customers': 0, 'orders.returning_customer_orders': 1, 'orders.returning_customer_revenue': 100, 'orders.customers': 1 });
    // o6 is dave's second order: his first (o5) is before the range. o7 (10 GBP = 20 USD) has no identity: a new customer of its own.
    expect(days['2026-03-03']).toMatchObject({ 'orders.orders': 2, 'orders.total_revenue': 80, 'orders.refunds': 20, 'orders.net_revenue': 60, 'orders.average_order_value': 40, 'orders.new_customers': 1, 'orders.new_customer_revenue': 20, 'orders.returning_customer_orders': 1, 'orders.returning_customer_revenue': 60, 'orders.customers': 2 });
    expect(Object.fromEntries(result.measureDetails.map((entry) => [entry.measure, entry.primarySum]))).toEqual({
      'orders.orders': 5,
      'orders.total_revenue': 480,
      'orders.refunds': 230,
      'orders.net_revenue': 250,
      'orders.average_order_value': 96,
      // alice, erin, dave and o7: alice ordered on two days but is one customer over the range.
      'orders.customers': 4,
      'orders.new_customers': 3,
      'orders.new_customer_revenue': 320,
      'orders.returning_customer_orders': 2,
      'orders.returning_customer_revenue': 160,
    });
  });

  it('puts refunds on the order date with order_date (and its alias original_order_date)', async () => {
    for (const refundDateAttribution of ['order_date', 'original_order_date']) {
      const result = await query(pixel, { measures: ['orders.refunds', 'orders.net_revenue'], granularity: 'day', dateRange: MARCH, orderSettings: { refundDateAttribution } });
      const days = byDt(result.data.primary);
      // o1's 20 and o8's 200 on 03-01; o7's 5 GBP (10 USD, processed on 03-04) on its order day 03-03; o5 is outside.
      expect([days['2026-03-01']!['orders.refunds'], days['2026-03-02']!['orders.refunds'], days['2026-03-03']!['orders.refunds']]).toEqual([220, 0, 10]);
      expect(detail(result, 'orders.refunds').primarySum).toBe(230);
      expect(detail(result, 'orders.net_revenue').primarySum).toBe(250);
    }
  });

  it('counts pending and voided orders only when asked', async () => {
    const pending = await query(pixel, { measures: ['orders.orders', 'orders.total_revenue', 'orders.new_customers'], dateRange: MARCH, orderSettings: { countPendingOrders: true } });
    expect(pending.data.primary[0]).toMatchObject({ 'orders.orders': 6, 'orders.total_revenue': 530, 'orders.new_customers': 4 });
    const voided = await query(pixel, { measures: ['orders.orders', 'orders.total_revenue'], dateRange: MARCH, orderSettings: { countVoidedOrders: true } });
    expect(voided.data.primary[0]).toMatchObject({ 'orders.orders': 6, 'orders.total_revenue': 510 });
  });

  it('drops orders an enabled exclusion filter matches, and a customer’s first order moves with them', async () => {
    const filter = (conditions: unknown[], logic = 'and', enabled = true) => ({ orderSettings: { exclusionFilters: [{ name: 'x', enabled, conditionGroups: [{ logic, conditions }] }] } });
    const run = async (settings: object) =>
      (await query(pixel, { measures: ['orders.orders', 'orders.total_revenue', 'orders.refunds', 'orders.new_customers'], dateRange: MARCH, ...settings })).data.primary[0];
    expect(await run(filter([{ field: 'sourceName', operator: 'equals', value: 'wholesale' }]))).toMatchObject({ 'orders.orders': 4, 'orders.total_revenue': 280, 'orders.refunds': 30, 'orders.new_customers': 2 });
    expect(await run(filter([{ field: 'sourceName', operator: 'equals', value: 'wholesale' }], 'and', false))).toMatchObject({ 'orders.orders': 5 });
    // o5 (40) and o7 (10, in its own GBP) are under 45: dave's first counted order becomes o6.
    expect(await run(filter([{ field: 'value', operator: 'less_than', value: 45 }]))).toMatchObject({ 'orders.orders': 4, 'orders.total_revenue': 460, 'orders.refunds': 220, 'orders.new_customers': 3 });
    expect(await run(filter([{ field: 'tags', operator: 'array_includes', value: 'test' }]))).toMatchObject({ 'orders.orders': 4, 'orders.total_revenue': 460 });
    expect(await run(filter([{ field: 'paymentGateway', operator: 'in', value: ['paypal', 'bank'] }]))).toMatchObject({ 'orders.orders': 3, 'orders.total_revenue': 180 });
    // An `or` group: either condition drops the order.
    expect(await run(filter([{ field: 'sourceName', operator: 'equals', value: 'pos' }, { field: 'tags', operator: 'array_includes_any', value: ['vip', 'test'] }], 'or'))).toMatchObject({ 'orders.orders': 2, 'orders.total_revenue': 260 });
    // An `and` group: both conditions must match (only o1 is web and vip).
    expect(await run(filter([{ field: 'sourceName', operator: 'equals', value: 'web' }, { field: 'tags', operator: 'array_includes', value: 'vip' }]))).toMatchObject({ 'orders.orders': 4, 'orders.total_revenue': 380 });
  });
});

describe('events measures', () => {
  it('counts events and people, linking identifiers seen together', async () => {
    const measures = ['events.count', 'events.page_views', 'events.add_to_carts', 'events.checkouts', 'events.purchases', 'events.visitors', 'events.conversion_rate'];
    const result = await query(pixel, { measures, granularity: 'day', dateRange: MARCH });
    const days = byDt(result.data.primary);
    expect(days['2026-03-01']).toMatchObject({ 'events.count': 4, 'events.page_views': 1, 'events.add_to_carts': 1, 'events.checkouts': 1, 'events.purchases': 1, 'events.visitors': 1, 'events.conversion_rate': 100 });
    expect(days['2026-03-02']).toMatchObject({ 'events.count': 3, 'events.page_views': 1, 'events.checkouts': 1, 'events.visitors': 1, 'events.conversion_rate': 0 });
    expect(days['2026-03-03']).toMatchObject({ 'events.count': 1, 'events.visitors': 1 });
    // fb1, alice and bob are one person (ev2 links fb1 and alice, ev7 bob and fb1); zed another.
    expect(Object.fromEntries(result.measureDetails.map((entry) => [entry.measure, entry.primarySum]))).toMatchObject({ 'events.count': 8, 'events.checkouts': 2, 'events.visitors': 2, 'events.conversion_rate': 50 });
  });

  it('splits by utm_source with missing values under null, sorted after time', async () => {
    const result = await query(pixel, { measures: ['events.count'], dimensions: ['events.utm_source'], dateRange: MARCH });
    expect(result.data.primary.map((point) => [point['events.utm_source'], point['events.count']])).toEqual([
      [null, 4],
      ['google', 3],
      ['meta', 1],
    ]);
  });

  it('narrows events by an events filter only', async () => {
    const result = await query(pixel, {
      measures: ['events.count', 'orders.orders'],
      dateRange: MARCH,
      filters: { and: [{ field: 'events.name', op: 'equals', value: 'page_view' }, { field: 'orders.source_name', op: 'equals', value: 'web' }] },
    });
    expect(result.data.primary[0]).toMatchObject({ 'events.count': 3, 'orders.orders': 3 });
  });
});

describe('channel and blended measures', () => {
  it('compute spend at each hour’s rate and blend it with revenue', async () => {
    const measures = ['channel.spend', 'meta.spend', 'google.spend', 'channel.ctr', 'core.roas', 'core.mer', 'core.new_customer_roas', 'core.cac'];
    const result = await query(pixel, { measures, granularity: 'day', dateRange: MARCH });
    const days = byDt(result.data.primary);
    expect(days['2026-03-01']).toMatchObject({ 'channel.spend': 10, 'meta.spend': 10, 'google.spend': 0, 'channel.ctr': 1, 'core.roas': 30, 'core.mer': 10, 'core.new_customer_roas': 30, 'core.cac': 5 });
    expect(days['2026-03-02']).toMatchObject({ 'channel.spend': 20, 'channel.ctr': 3, 'core.roas': 5, 'core.mer': 4.5, 'core.new_customer_roas': 0, 'core.cac': null });
    expect(days['2026-03-03']).toMatchObject({ 'channel.spend': 50, 'google.spend': 50, 'channel.ctr': 1, 'core.roas': 1.6, 'core.mer': 1.2, 'core.new_customer_roas': 0.4, 'core.cac': 50 });
    expect(Object.fromEntries(result.measureDetails.map((entry) => [entry.measure, entry.primarySum]))).toEqual({
      'channel.spend': 80,
      'meta.spend': 30,
      'google.spend': 50,
      'channel.ctr': 1.8,
      'core.roas': 6,
      'core.mer': 3.125,
      'core.new_customer_roas': 4,
      'core.cac': 26.666667,
    });
  });

  it('splits channel measures by platform and narrows them by channel filters only', async () => {
    const split = await query(pixel, { measures: ['channel.spend'], dimensions: ['channel.resource_source'], dateRange: MARCH });
    expect(split.data.primary.map((point) => [point['channel.resource_source'], point['channel.spend']])).toEqual([
      ['googleIntegration', 50],
      ['metaIntegration', 30],
    ]);
    const narrowed = await query(pixel, { measures: ['core.roas'], dateRange: MARCH, filters: { field: 'channel.resource_source', op: 'equals', value: 'metaIntegration' } });
    expect(narrowed.data.primary[0]!['core.roas']).toBe(16);
  });

  it('reports a measure without an exchange rate as failed and keeps the others', async () => {
    const result = await query(pixel, { measures: ['orders.orders', 'orders.total_revenue', 'channel.spend', 'channel.clicks'], dateRange: MARCH, currency: 'JPY' });
    expect(result.measureDetails.map((entry) => [entry.measure, entry.success])).toEqual([
      ['orders.orders', true],
      ['orders.total_revenue', false],
      ['channel.spend', false],
      ['channel.clicks', true],
    ]);
    expect(detail(result, 'orders.total_revenue').reason).toMatch(/No exchange rate/);
    expect(result.data.primary[0]).toEqual(expect.objectContaining({ 'orders.orders': 5, 'channel.clicks': 45 }));
    expect(result.data.primary[0]).not.toHaveProperty('orders.total_revenue');
  });

  it('converts orders to the requested currency at the rate of the order’s UTC date', async () => {
    const result = await query(pixel, { measures: ['orders.total_revenue'], dateRange: MARCH, currency: 'EUR' });
    expect(result.data.primary[0]!['orders.total_revenue']).toBe(384);
  });
});

describe('orders dimensions and filters', () => {
  it('splits by tag, each order under each of its tags, untagged under null', async () => {
    const result = await query(pixel, { measures: ['orders.orders'], dimensions: ['orders.tag'], dateRange: MARCH, orderSettings: { countPendingOrders: true } });
    expect(result.data.primary.map((point) => [point['orders.tag'], point['orders.orders']])).toEqual([
      [null, 3],
      ['sale', 1],
      ['test', 1],
      ['vip', 2],
    ]);
    // The range total counts each order once.
    expect(detail(result, 'orders.orders').primarySum).toBe(6);
  });

  it('splits by customer type, source, gateway and currency together', async () => {
    const result = await query(pixel, {
      measures: ['orders.total_revenue'],
      dimensions: ['orders.customer_type', 'orders.currency'],
      dateRange: MARCH,
    });
    expect(result.data.primary.map((point) => [point['orders.customer_type'], point['orders.currency'], point['orders.total_revenue']])).toEqual([
      ['new', 'GBP', 20],
      ['new', 'USD', 300],
      ['returning', 'EUR', 100],
      ['returning', 'USD', 60],
    ]);
    const bySource = await query(pixel, { measures: ['orders.orders'], dimensions: ['orders.source_name', 'orders.payment_gateway'], dateRange: MARCH });
    expect(bySource.data.primary.map((point) => [point['orders.source_name'], point['orders.payment_gateway'], point['orders.orders']])).toEqual([
      ['pos', 'paypal', 1],
      ['web', 'stripe', 3],
      ['wholesale', 'bank', 1],
    ]);
  });

  it('filters on customer type narrow the figures but never who is new', async () => {
    const result = await query(pixel, { measures: ['orders.orders', 'orders.new_customers'], dateRange: MARCH, filters: { field: 'orders.customer_type', op: 'equals', value: 'returning' } });
    expect(result.data.primary[0]).toMatchObject({ 'orders.orders': 2, 'orders.new_customers': 0 });
    // The upstream service's spelling selects the same orders.
    const upstream = await query(pixel, { measures: ['orders.orders'], dateRange: MARCH, filters: { field: 'orders.customer_type', op: 'in', value: ['new_customer'] } });
    expect(upstream.data.primary[0]!['orders.orders']).toBe(3);
    const notNew = await query(pixel, { measures: ['orders.orders'], dateRange: MARCH, filters: { field: 'orders.customer_type', op: 'not_equals', value: 'new' } });
    expect(notNew.data.primary[0]!['orders.orders']).toBe(2);
    const tagged = await query(pixel, { measures: ['orders.orders'], dateRange: MARCH, filters: { field: 'orders.tag', op: 'not_equals', value: 'vip' } });
    expect(tagged.data.primary[0]!['orders.orders']).toBe(4);
  });
});

describe('compare periods and measure details', () => {
  it('compares with an explicit period and computes percentDiff from range totals', async () => {
    const result = await query(pixel, {
      measures: ['orders.orders', 'orders.total_revenue', 'orders.average_order_value'],
      granularity: 'day',
      dateRange: MARCH,
      compareDateRange: { start: '2026-02-20', end: '2026-02-22' },
    });
    expect(result.compareDateRange).toEqual({ start: '2026-02-20', end: '2026-02-22' });
    expect(result.data.compare).toEqual([
      { dt: '2026-02-20', start: '2026-02-20T00:00:00.000+00:00', end: '2026-02-20T23:59:59.999+00:00', 'orders.orders': 1, 'orders.total_revenue': 40, 'orders.average_order_value': 40 },
    ]);
    expect(detail(result, 'orders.orders')).toEqual({
      measure: 'orders.orders',
      success: true,
      isAverage: false,
      isPercentage: false,
      calculatedAverage: false,
      primarySum: 5,
      compareSum: 1,
      primaryAvg: 1.666667,
      compareAvg: 0.333333,
      percentDiff: 400,
      hasPacing: false,
      preferredTrendDirection: 'up',
    });
    expect(detail(result, 'orders.total_revenue').percentDiff).toBe(1100);
    expect(detail(result, 'orders.average_order_value')).toMatchObject({ calculatedAverage: true, primarySum: 96, primaryAvg: 96, compareSum: 40, percentDiff: 140 });
  });

  it('picks the preceding period of equal length when none is given, and none with granularity none', async () => {
    const daily = await query(pixel, { measures: ['orders.orders'], granularity: 'day', dateRange: MARCH });
    expect(daily.compareDateRange).toEqual({ start: '2026-02-26', end: '2026-02-28' });
    expect(detail(daily, 'orders.orders')).toMatchObject({ compareSum: 0, percentDiff: null });
    const total = await query(pixel, { measures: ['orders.orders'], dateRange: MARCH });
    expect(total.compareDateRange).toBeNull();
    expect(total.data.compare).toEqual([]);
    expect(detail(total, 'orders.orders')).toMatchObject({ compareSum: null, percentDiff: null });
  });
});

describe('granularities in a time zone', () => {
  const dst: MemoryPixel = {
    fx: [],
    events: [],
    ads: [],
    orders: [
      // 2026-03-07 23:30 EST, 2026-03-08 01:30 EST, 2026-03-08 03:30 EDT (after the jump), 2026-03-08 23:30 EDT.
      order('d1', '2026-03-08T04:30:00Z', { value: 1 }),
      order('d2', '2026-03-08T06:30:00Z', { value: 2 }),
      order('d3', '2026-03-08T07:30:00Z', { value: 4 }),
      order('d4', '2026-03-09T03:30:00Z', { value: 8 }),
    ],
  };

  it('reads a daylight-saving day as 23 hours in New York', async () => {
    const result = await query(dst, { measures: ['orders.total_revenue'], granularity: 'day', dateRange: { start: '2026-03-07', end: '2026-03-08' }, timezone: 'America/New_York' });
    expect(result.data.primary).toEqual([
      { dt: '2026-03-07', start: '2026-03-07T00:00:00.000-05:00', end: '2026-03-07T23:59:59.999-05:00', 'orders.total_revenue': 1 },
      { dt: '2026-03-08', start: '2026-03-08T00:00:00.000-05:00', end: '2026-03-08T23:59:59.999-04:00', 'orders.total_revenue': 14 },
    ]);
    const hours = await query(dst, { measures: ['orders.total_revenue'], granularity: 'hour', dateRange: { start: '2026-03-08', end: '2026-03-08' }, timezone: 'America/New_York' });
    expect(hours.data.primary.map((point) => [point.dt, point.start, point['orders.total_revenue']])).toEqual([
      ['2026-03-08T01:00', '2026-03-08T01:00:00.000-05:00', 2],
      ['2026-03-08T03:00', '2026-03-08T03:00:00.000-04:00', 4],
      ['2026-03-08T23:00', '2026-03-08T23:00:00.000-04:00', 8],
    ]);
  });

  const tokyo: MemoryPixel = {
    fx: [],
    events: [],
    ads: [],
    orders: [
      order('t1', '2026-03-29T14:30:00Z', { value: 1 }), // Sunday 23:30 in Tokyo: week of Monday 03-23
      order('t2', '2026-03-31T14:00:00Z', { value: 2 }), // 03-31 23:00 JST: March, Q1
      order('t3', '2026-03-31T16:00:00Z', { value: 4 }), // 04-01 01:00 JST: April, Q2
      order('t4', '2026-12-31T15:30:00Z', { value: 8 }), // 2027-01-01 00:30 JST: next year
    ],
  };
  const run = (granularity: string) =>
    query(tokyo, { measures: ['orders.total_revenue'], granularity, dateRange: { start: '2026-03-01', end: '2027-01-31' }, timezone: 'Asia/Tokyo', compareDateRange: { start: '2025-01-01', end: '2025-01-02' } });

  it('cuts weeks on Monday, months, quarters and years at local midnight', async () => {
    const pairs = async (granularity: string) => (await run(granularity)).data.primary.map((point) => [point.dt, point['orders.total_revenue']]);
    expect(await pairs('week')).toEqual([['2026-03-23', 1], ['2026-03-30', 6], ['2026-12-28', 8]]);
    expect(await pairs('month')).toEqual([['2026-03', 3], ['2026-04', 4], ['2027-01', 8]]);
    expect(await pairs('quarter')).toEqual([['2026-Q1', 3], ['2026-Q2', 4], ['2027-Q1', 8]]);
    expect(await pairs('year')).toEqual([['2026', 7], ['2027', 8]]);
    const month = (await run('month')).data.primary[0]!;
    expect([month.start, month.end]).toEqual(['2026-03-01T00:00:00.000+09:00', '2026-03-31T23:59:59.999+09:00']);
  });

  it('averages additive measures over the buckets of the range', async () => {
    const result = await run('quarter');
    // 2026-Q1 (from 03-01), Q2, Q3, Q4 and 2027-Q1 (to 01-31): 5 buckets.
    expect(result.measureDetails[0]).toMatchObject({ primarySum: 15, primaryAvg: 3 });
  });
});
