import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COST_UNIT,
  PRICE_CAPS,
  SERIES_CEILING,
  expectedSeries,
  priceAttribution,
  priceCohort,
  priceOf,
  priceQuery,
  priceQueryAds,
} from '../../shared/analytics/request-cost';
import { DIMENSIONS, findDimension } from '../../shared/catalog/dimensions';
import { queryAdsRequestSchema } from '../../shared/schemas/query-ads';
import { queryAttributionRequestSchema } from '../../shared/schemas/query-attribution';
import { queryCohortRequestSchema } from '../../shared/schemas/query-cohort';
import { queryRequestSchema } from '../../shared/schemas/query-measures';

const query = (body: Record<string, unknown>) => priceQuery(queryRequestSchema.parse({ pixelId: 'px', ...body }));

describe('the price of a query, before any data is read', () => {
  it('counts the values of the answer: time buckets of both ranges × series × measures', () => {
    const price = query({ measures: ['orders.orders', 'orders.net_revenue'], dimensions: ['orders.source_name'], granularity: 'day', dateRange: { start: '2026-03-01', end: '2026-03-30' } });
    // 30 days and the 30 before them, split by the 10 values a sales channel typically has.
    expect(price).toMatchObject({ buckets: 60, series: 10, measures: 2, values: 1_200, eventDays: 0 });
    expect(price.units).toBe(1 + 1);
  });

  it('refuses, by its values, the answer of tens of megabytes: 9 channel measures by 5 dimensions in hours over 206 days', () => {
    const price = query({
      measures: ['channel.spend', 'channel.impressions', 'channel.clicks', 'channel.roas', 'channel.cpc', 'channel.ctr', 'channel.cpm', 'channel.conversions', 'channel.conversion_value'],
      dimensions: ['channel.resource_source', 'channel.account_id', 'channel.campaign_id', 'channel.adset_id', 'channel.ad_id'],
      granularity: 'hour',
      dateRange: { start: '2026-05-01', end: '2026-11-23' },
    });
    expect(price.series).toBe(SERIES_CEILING.channel);
    expect(price.values).toBeGreaterThan(PRICE_CAPS.values);
  });

  it('counts the days whose events are read one by one: the people measures, and buckets that are not whole UTC hours', () => {
    const visitors = query({ measures: ['events.visitors'], granularity: 'day', dateRange: { start: '2024-12-01', end: '2026-12-01' } });
    expect(visitors.eventDays).toBe(2 * 731);
    expect(visitors.eventDays).toBeGreaterThan(PRICE_CAPS.eventDays);
    expect(query({ measures: ['events.count'], granularity: 'day', dateRange: { start: '2024-12-01', end: '2026-12-01' } }).eventDays).toBe(0);
    // India's offset is five and a half hours: its days do not start on a UTC hour.
    expect(query({ measures: ['events.count'], granularity: 'day', timezone: 'Asia/Kolkata', dateRange: { start: '2026-03-01', end: '2026-03-10' } }).eventDays).toBe(20);
    expect(query({ measures: ['events.visitors'], granularity: 'day', dateRange: { start: '2026-10-01', end: '2026-11-29' } }).eventDays).toBeLessThanOrEqual(PRICE_CAPS.eventDays);
  });

  it('prices every query the schema accepts by one rule: values are the product of their parts, units follow from values and event days (property)', () => {
    const measureIds = ['orders.orders', 'orders.net_revenue', 'events.count', 'events.visitors', 'channel.spend', 'core.mer'];
    fc.assert(
      fc.property(
        fc.subarray(measureIds, { minLength: 1 }),
        fc.constantFrom('none', 'hour', 'day', 'week', 'month'),
        fc.integer({ min: 1, max: 700 }),
        (measures, granularity, days) => {
          const end = new Date(Date.parse('2026-11-30T00:00:00Z'));
          const start = new Date(end.getTime() - (days - 1) * 86_400_000);
          const parsed = queryRequestSchema.safeParse({
            pixelId: 'px',
            measures,
            granularity,
            dateRange: { start: start.toISOString().slice(0, 10), end: end.toISOString().slice(0, 10) },
          });
          if (!parsed.success) return;
          const price = priceQuery(parsed.data);
          expect(price.values).toBe(price.buckets * price.series * price.measures);
          expect(price.units).toBe(1 + Math.ceil(price.values / COST_UNIT.values) + Math.ceil(price.eventDays / COST_UNIT.eventDays));
          expect(price.bytes).toBeGreaterThan(price.values);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('series', () => {
  it('are the product of the dimensions\u2019 expected values, up to the family\u2019s ceiling', () => {
    expect(expectedSeries([])).toBe(1);
    expect(expectedSeries(['orders.customer_type'])).toBe(3);
    expect(expectedSeries(['orders.customer_type', 'orders.source_name'])).toBe(30);
    expect(expectedSeries(['channel.campaign_id', 'channel.ad_id'])).toBe(SERIES_CEILING.channel);
  });

  it('never exceed the ceiling and never fall below the largest single dimension (property)', () => {
    for (const family of ['orders', 'events', 'channel'] as const) {
      const ids = DIMENSIONS.filter((entry) => entry.family === family).map((entry) => entry.id);
      fc.assert(
        fc.property(fc.subarray(ids, { minLength: 1 }), (dimensions) => {
          const series = expectedSeries(dimensions);
          expect(series).toBeLessThanOrEqual(SERIES_CEILING[family]);
          expect(series).toBeGreaterThanOrEqual(Math.min(SERIES_CEILING[family], Math.max(...dimensions.map((id) => findDimension(id)!.expectedValues))));
        }),
      );
    }
  });
});

describe('the other analytics endpoints', () => {
  it('query-ads: a page of ads × measures × the days of both ranges', () => {
    const page = priceQueryAds(
      queryAdsRequestSchema.parse({ pixelId: 'px', limit: 500, measures: Array.from({ length: 10 }, (_, i) => ['channel.spend', 'channel.impressions', 'channel.clicks', 'channel.ctr', 'channel.cpc', 'channel.cpm', 'channel.roas', 'channel.conversions', 'channel.conversion_value', 'meta.spend'][i]), dateRange: { start: '2026-01-01', end: '2026-02-14' }, compareDateRange: { start: '2025-11-17', end: '2025-12-31' } }),
    );
    // The benchmark's largest page is well within the cap.
    expect(page).toMatchObject({ buckets: 90, series: 500, measures: 10, values: 450_000 });
    expect(page.values).toBeLessThanOrEqual(PRICE_CAPS.values);
    expect(priceQueryAds(queryAdsRequestSchema.parse({ pixelId: 'px', limit: 50 }))).toMatchObject({ values: 50, units: 2 });
  });

  it('attribution: buckets × the dimension\u2019s expected values × measures × models', () => {
    const price = priceAttribution(
      queryAttributionRequestSchema.parse({ pixelId: 'px', dateRange: { start: '2026-03-01', end: '2026-03-31' }, granularity: 'day', dimension: 'channel.ad_id', attributionModel: ['last_click', 'linear'], measures: ['attribution.orders', 'attribution.revenue'] }),
    );
    expect(price).toMatchObject({ buckets: 31, series: 200, measures: 4, values: 31 * 200 * 4 });
  });

  it('cohorts: cohorts × periods (and the acquisition period itself) × measures', () => {
    const price = priceCohort(queryCohortRequestSchema.parse({ pixelId: 'px', granularity: 'month', periods: 12, measures: ['orders.customers_cohort', 'orders.ltv_cohort_net_revenue'], dateRange: { start: '2025-01-01', end: '2025-12-31' } }));
    expect(price).toMatchObject({ buckets: 12 * 13, series: 1, measures: 2 });
    expect(price.values).toBeLessThanOrEqual(PRICE_CAPS.values);
  });

  it('every price is one unit more than its values and event days cost', () => {
    expect(priceOf({ buckets: 1, series: 1, measures: 1, factDays: 1, eventDays: 0 }).units).toBe(2);
    expect(priceOf({ buckets: 0, series: 1, measures: 1, factDays: 0, eventDays: 0 }).units).toBe(1);
    expect(priceOf({ buckets: 100, series: 100, measures: 200, factDays: 0, eventDays: 200 }).units).toBe(1 + 200 + 20);
  });
});
