import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { shapeAttribution } from '../../shared/attribution/attribution-engine';
import { attributionReadModelSource, runAttributionQuery, type AttributionSource } from '../../shared/attribution/attribution-service';
import { queryAttributionRequestSchema } from '../../shared/schemas/query-attribution';
import { readAds } from '../../shared/analytics/store/ad-facts';
import { importAds } from '../support/ad-store';
import { addDays } from '../../shared/time/zoned-time';
import { hourlyMetricRows, validAdInput } from '../support/ad-fixtures';
import { memoryAttributionSource, visit, type AttributionPixel } from '../support/attribution-fixtures';
import { useFreshTable } from '../support/fresh-table';
import { order } from '../support/query-fixtures';

/*
 * The spend join of POST /db-mgmt/api/query-attribution reads each ad's cells per local day and
 * UTC date as DuckDB sums them from the stored hours; the engine sums the same hours into cells
 * itself when a source gives hours. Both must give the same spend, ROAS and CPA to the last
 * printed digit, in zones whose days are not UTC days, across daylight-saving changes (New York
 * 2026-03-08, Paris 2026-03-29, Lord Howe's half hour) and in a currency the ads must be converted
 * from, at rates that change from one UTC date to the next.
 */

const HOUR_MS = 3_600_000;
const FIRST_HOUR = Date.parse('2026-02-26T00:00:00Z');
const ZONES = ['America/New_York', 'Europe/Paris', 'Asia/Kolkata', 'Australia/Lord_Howe'];
const FX = [
  { date: '2026-02-01', rates: { USD: 1, EUR: 0.9, GBP: 0.75 } },
  { date: '2026-03-07', rates: { USD: 1, EUR: 0.8, GBP: 0.7 } },
  { date: '2026-03-08', rates: { USD: 1, EUR: 0.85, GBP: 0.72 } },
  { date: '2026-03-09', rates: { USD: 1, EUR: 0.87, GBP: 0.74 } },
  { date: '2026-03-29', rates: { USD: 1, EUR: 0.91, GBP: 0.77 } },
  { date: '2026-03-30', rates: { USD: 1, EUR: 0.93, GBP: 0.78 } },
];

/** Ads on two platforms and campaigns, in currencies other than the query's. */
const AD_SHAPES = [
  { platform: 'meta', adId: 'm1', campaignId: 'c1', currency: 'EUR', source: 'facebook' },
  { platform: 'google', adId: 'g1', campaignId: 'c2', currency: 'GBP', source: 'google' },
  { platform: 'meta', adId: 'm2', campaignId: 'c2', currency: 'EUR', source: 'facebook' },
] as const;

const hourlyRows = hourlyMetricRows(FIRST_HOUR, 45, 150);

/** An order a day at 15:00 UTC in USD or EUR, each bought by a visitor who came from one of the ads two days earlier. */
function buyers(): Pick<AttributionPixel, 'orders' | 'events'> {
  const orders = [];
  const events = [];
  for (let day = 0; day < 45; day++) {
    const at = new Date(FIRST_HOUR + day * 24 * HOUR_MS + 15 * HOUR_MS).toISOString();
    const shape = AD_SHAPES[day % AD_SHAPES.length]!;
    const user = { anonymousId: `V${day}` };
    orders.push(order(`o${day}`, at, { value: 40 + day, currency: day % 2 === 0 ? 'USD' : 'EUR', customer: { userIds: [`u${day}`], emailHashes: [], phoneHashes: [] } }));
    events.push(
      visit(new Date(Date.parse(at) - 2 * 24 * HOUR_MS).toISOString(), user, `https://shop.example/?utm_source=${shape.source}&campaign_id=${shape.campaignId}&ad_id=${shape.adId}`),
      visit(new Date(Date.parse(at) - HOUR_MS).toISOString(), { anonymousId: `V${day}`, userIds: [`u${day}`] }, 'https://shop.example/account', { name: 'login' }),
    );
  }
  return { orders, events };
}

let run = 0;

/** A pixel with these ads and the rates, imported as `npm run import-ads` does. */
async function storedPixel(adsHours: ReadonlyArray<ReadonlyArray<Record<string, unknown>>>) {
  run++;
  const pixel = `px_attr_cells_${run}`;
  const ads = adsHours.map((hourly, i) => {
    const shape = AD_SHAPES[i]!;
    return validAdInput({ platform: shape.platform, adId: shape.adId, campaignId: shape.campaignId, currency: shape.currency, hourly });
  });
  await importAds(pixel, ads, FX);
  return pixel;
}

/**
 * The orders and journeys hand-built; the ads and their hours from the store of `pixelId`.
 * `cells: false` takes the stored hours and sums them in the engine; `true` the store's cells.
 */
function storeAdsSource(pixelId: string, cells: boolean): AttributionSource {
  const memory = memoryAttributionSource({ ...buyers(), fx: FX });
  return {
    ...memory,
    ads: () => readAds(pixelId),
    adHours: attributionReadModelSource.adHours,
    ...(cells ? { adCells: attributionReadModelSource.adCells } : { adCells: undefined }),
  };
}

async function answer(pixelId: string, body: Record<string, unknown>, cells: boolean) {
  const request = queryAttributionRequestSchema.parse({ pixelId, ...body });
  const { spec, primary, compare } = await runAttributionQuery(pixelId, request, storeAdsSource(pixelId, cells));
  return shapeAttribution(spec, { dateRange: request.dateRange, compareDateRange: request.compareDateRange }, primary, compare).results;
}

const MEASURES = ['attribution.orders', 'attribution.revenue', 'channel.spend', 'attribution.roas', 'attribution.cpa'];

beforeAll(async () => {
  await useFreshTable();
});

describe('query-attribution spend from the store\'s cells', () => {
  it('gives exactly the spend, ROAS and CPA of the hours, for random hours, zones, ranges, dimensions, granularities and currencies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(hourlyRows, { minLength: 1, maxLength: AD_SHAPES.length }),
        fc.constantFrom(...ZONES),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 15 }),
        fc.constantFrom('USD', 'EUR'),
        fc.constantFrom('source', 'channel.campaign_id', 'channel.ad_id'),
        fc.constantFrom('none', 'day', 'week', 'month'),
        async (adsHours, zone, startOffset, length, currency, dimension, granularity) => {
          const pixel = await storedPixel(adsHours);
          const start = addDays('2026-02-26', startOffset);
          const body = {
            dimension,
            granularity,
            attributionModel: ['last_click', 'linear'],
            measures: MEASURES,
            dateRange: { start, end: addDays(start, length) },
            compareDateRange: { start: addDays(start, -length - 1), end: addDays(start, -1) },
            timezone: zone,
            currency,
          };
          expect(await answer(pixel, body, true)).toEqual(await answer(pixel, body, false));
        },
      ),
      { numRuns: 20 },
    );
  }, 180_000);

  it('sums New York\'s 23-hour day of March 8 from its own hours, converting EUR and GBP', async () => {
    const adsHours = AD_SHAPES.map((_, i) =>
      Array.from({ length: 10 * 24 }, (__, h) => ({
        hour: new Date(Date.parse('2026-03-03T00:00:00Z') + h * HOUR_MS).toISOString(),
        spend: ((h * 37 + i * 11) % 500) / 100,
        impressions: 100 + h,
        clicks: h % 7,
        conversions: h % 3,
        conversionValue: (h % 13) * 1.1,
      })),
    );
    const pixel = await storedPixel(adsHours);
    const body = { dimension: 'channel.ad_id', granularity: 'day', attributionModel: 'last_click', measures: MEASURES, dateRange: { start: '2026-03-04', end: '2026-03-11' }, timezone: 'America/New_York', currency: 'USD' };
    const fromHours = await answer(pixel, body, false);
    const fromCells = await answer(pixel, body, true);
    expect(fromCells).toEqual(fromHours);
    const spendOf = (results: typeof fromHours) => results[0]!.data.primary.filter((point) => point['channel.ad_id'] === 'm1').map((point) => [point.dt, point['channel.spend']]);
    expect(spendOf(fromCells).map(([dt]) => dt)).toEqual(['2026-03-04', '2026-03-05', '2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09', '2026-03-10', '2026-03-11']);
    // March 8 in New York: 05:00Z on March 8 to 04:00Z on March 9, 23 hours at EUR 0.85 (March 8) and 0.87 (March 9).
    const eurPerUsd = (date: string) => (date === '2026-03-08' ? 0.85 : 0.87);
    let expected = 0;
    for (let h = 0; h < 23; h++) {
      const at = Date.parse('2026-03-08T05:00:00Z') + h * HOUR_MS;
      const index = (at - Date.parse('2026-03-03T00:00:00Z')) / HOUR_MS;
      expected += (((index * 37) % 500) / 100) / eurPerUsd(new Date(at).toISOString().slice(0, 10));
    }
    expect(spendOf(fromCells)[4]![1]).toBeCloseTo(expected, 5);
  });
});
