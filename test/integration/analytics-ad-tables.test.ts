import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calendarOf, cellsFromHours } from '../../shared/ads/ad-series';
import { AdFactsImport, readAdCells, readAdHours, readAds, type HourlyMetrics } from '../../shared/analytics/store/ad-facts';
import { readFxTable } from '../../shared/analytics/store/fx-rates';
import { liveFiles } from '../../shared/analytics/store/partitions';
import { adImportSchema, type Ad } from '../../shared/schemas/ad-import';
import { hourRow, validAdInput } from '../support/ad-fixtures';
import { useFreshTable } from '../support/fresh-table';
import { ANALYTICS_STORES, useDirectoryAnalyticsStore } from '../support/s3-server';

/*
 * The ad tables of the analytics store (ads, ad_hours, fx_rates): imports write rows, and the
 * read rule (for each key, the row of the latest import) decides what is live. Checked against a
 * plain-JS statement of the rule over random sequences of imports, on both stores.
 */
const HOUR = 3_600_000;
const START = Date.parse('2026-03-01T00:00:00Z');
const RANGE = { start: START, end: START + 6 * 24 * HOUR };
const AD_IDS = ['a1', 'a2', 'a3'] as const;

/** One ad of one import: which ad, a name to tell imports apart, and its hours (offsets from START) with a spend each. */
const adOfImport = fc.record({
  adId: fc.constantFrom(...AD_IDS),
  adName: fc.string({ minLength: 1, maxLength: 8 }),
  hours: fc.uniqueArray(fc.record({ hour: fc.integer({ min: 0, max: 6 * 24 - 1 }), spend: fc.integer({ min: 0, max: 1000 }) }), { selector: (row) => row.hour, maxLength: 30 }),
});
/** A sequence of imports, each of some ads (an ad may appear twice in one import), and rates. */
const imports = fc.array(
  fc.record({
    ads: fc.array(adOfImport, { maxLength: 4 }),
    rates: fc.array(fc.record({ day: fc.integer({ min: 0, max: 5 }), currency: fc.constantFrom('EUR', 'GBP'), rate: fc.integer({ min: 1, max: 100 }) }), { maxLength: 4 }),
  }),
  { minLength: 1, maxLength: 4 },
);

const dateOf = (day: number) => new Date(START + day * 24 * HOUR).toISOString().slice(0, 10);
const toInput = (ad: { adId: string; adName: string; hours: Array<{ hour: number; spend: number }> }) =>
  validAdInput({ adId: ad.adId, adName: ad.adName, hourly: ad.hours.map((row) => hourRow(new Date(START + row.hour * HOUR).toISOString(), row.spend)) });

/** The rule as stated: imports in order (and within one, ads in order), the last to give a key wins. */
function expected(sequence: ReadonlyArray<{ ads: Array<{ adId: string; adName: string; hours: Array<{ hour: number; spend: number }> }>; rates: Array<{ day: number; currency: string; rate: number }> }>) {
  const names = new Map<string, string>();
  const hours = new Map<string, Map<number, number>>();
  const rates = new Map<string, number>();
  for (const { ads, rates: given } of sequence) {
    for (const ad of ads) {
      names.set(ad.adId, ad.adName);
      const byHour = hours.get(ad.adId) ?? new Map<number, number>();
      for (const row of ad.hours) byHour.set(START + row.hour * HOUR, row.spend);
      hours.set(ad.adId, byHour);
    }
    for (const rate of given) rates.set(`${dateOf(rate.day)} ${rate.currency}`, rate.rate);
  }
  return { names, hours, rates };
}

async function store(pixelId: string, sequence: Parameters<typeof expected>[0], chunkRows?: number) {
  for (const [i, { ads, rates }] of sequence.entries()) {
    // Imports one after another: each later one started later (its id is greater).
    const writer = new AdFactsImport(pixelId, new Date(Date.parse('2026-04-01T00:00:00Z') + i * 1000), { chunkRows });
    await writer.addFxRates(rates.map((rate) => ({ date: dateOf(rate.day), rates: { [rate.currency]: rate.rate } })));
    for (const ad of ads) await writer.addAd(adImportSchema.parse(toInput(ad)));
    await writer.finish();
  }
}

beforeAll(async () => {
  await useFreshTable();
});
afterAll(useDirectoryAnalyticsStore);

describe.each(ANALYTICS_STORES)('the ad tables in $store', ({ store: storeName, use }) => {
  let run = 0;
  const pixel = (name: string) => `px_${storeName.replace(/\W/g, '')}_${name}_${run++}`;
  beforeAll(use);

  it('keeps, for each ad, hour and rate, what the latest import gave, and the union of what imports gave', async () => {
    await fc.assert(
      fc.asyncProperty(imports, fc.constantFrom(undefined, 2), async (sequence, chunkRows) => {
        const pixelId = pixel('rule');
        // Small chunks stage an import in several files, merged by the same rule before it is stored.
        await store(pixelId, sequence, chunkRows);
        const want = expected(sequence);

        const ads = await readAds(pixelId);
        expect(ads.map((ad) => [ad.adId, ad.adName])).toEqual([...want.names].sort(([a], [b]) => (a < b ? -1 : 1)));
        const hours = await readAdHours(pixelId, ads, RANGE);
        for (const ad of ads) {
          const stored = (hours.get(`meta#${ad.adId}`) ?? []).map((row) => [row.hour, row.spend]);
          expect(stored).toEqual([...(want.hours.get(ad.adId) ?? [])].sort(([a], [b]) => a - b));
        }
        // The cells summed by DuckDB are the stored hours summed here, in any zone.
        for (const zone of ['UTC', 'America/New_York', 'Asia/Kolkata']) {
          const calendar = calendarOf(RANGE, zone);
          const cells = await readAdCells(pixelId, ads, calendar);
          for (const ad of ads) expect(cells.get(`meta#${ad.adId}`)).toEqual(cellsFromHours(hours.get(`meta#${ad.adId}`) as HourlyMetrics[], calendar));
        }
        const fx = await readFxTable(pixelId);
        for (const [key, rate] of want.rates) {
          const [date, currency] = key.split(' ') as [string, string];
          expect(fx.rateOn(currency, date)).toBe(rate);
        }
      }),
      { numRuns: 12 },
    );
  }, 120_000);

  it('writes one file per UTC date an import touches, named by the import', async () => {
    const pixelId = pixel('files');
    const writer = new AdFactsImport(pixelId, new Date('2026-04-01T00:00:00Z'), { chunkRows: 3 });
    await writer.addAd(adImportSchema.parse(validAdInput({ hourly: [0, 1, 2, 25, 26, 49].map((h) => hourRow(new Date(START + h * HOUR).toISOString())) })));
    await writer.finish();
    const partitions = await liveFiles(pixelId, 'ad_hours', '2026-01-01', '2026-12-31');
    expect(partitions.map((partition) => [partition.date, partition.files])).toEqual([
      ['2026-03-01', [writer.importId]],
      ['2026-03-02', [writer.importId]],
      ['2026-03-03', [writer.importId]],
    ]);
    expect((await liveFiles(pixelId, 'ads', '2026-01-01', '2026-12-31')).map((partition) => [partition.date, partition.files])).toEqual([['2026-04-01', [writer.importId]]]);
  });

  it('stores nothing live from an import that is discarded before it finishes', async () => {
    const pixelId = pixel('discarded');
    const writer = new AdFactsImport(pixelId, new Date(), { chunkRows: 1 });
    await writer.addAd(adImportSchema.parse(validAdInput()));
    await writer.discard();
    expect(await readAds(pixelId)).toEqual([]);
    expect(await readAdHours(pixelId, [{ platform: 'meta', adId: 'a1' } as Ad], RANGE)).toEqual(new Map([['meta#a1', []]]));
  });
});
