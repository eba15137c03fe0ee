import { describe, expect, it } from 'vitest';
import { DEMO_DEFAULTS, generateDemoAds, generateDemoFxRates } from '../../lib/local/demo-ads';
import { adImportSchema, fxRatesEntrySchema, toAdImportInput } from '../../shared/schemas/ad-import';

const END = new Date('2026-03-31T10:25:00Z');
const options = { ...DEMO_DEFAULTS, end: END };
const ads = [...generateDemoAds(options)];
const HOUR_MS = 3_600_000;

describe('demo ads', () => {
  it('are the same on every run for the same options', () => {
    expect([...generateDemoAds(options)]).toEqual(ads);
    expect(generateDemoFxRates(options)).toEqual(generateDemoFxRates(options));
    expect([...generateDemoAds({ ...options, seed: 7 })]).not.toEqual(ads);
  });

  it('are valid import records that survive a file round trip', () => {
    for (const ad of ads) expect(adImportSchema.parse(JSON.parse(JSON.stringify(toAdImportInput(ad))))).toEqual(ad);
  });

  it('give ad i the same content whatever the number of ads, so a larger set extends a smaller one', () => {
    expect([...generateDemoAds({ ...options, ads: 5 })]).toEqual(ads.slice(0, 5));
  });

  it('cover the three platforms in several native currencies, with paused ads and unique ids', () => {
    expect(ads).toHaveLength(60);
    expect(new Set(ads.map((ad) => ad.platform))).toEqual(new Set(['meta', 'google', 'tiktok']));
    expect(new Set(ads.map((ad) => ad.currency))).toEqual(new Set(['EUR', 'USD', 'GBP', 'AUD', 'CAD']));
    expect(ads.filter((ad) => ad.status === 'PAUSED').length).toBeGreaterThan(3);
    expect(ads.filter((ad) => ad.status === 'ACTIVE' && ad.effectiveStatus === 'CAMPAIGN_PAUSED').length).toBeGreaterThan(3);
    expect(ads.some((ad) => ad.budgetRemaining === null)).toBe(true);
    expect(new Set(ads.map((ad) => `${ad.platform}#${ad.adId}`)).size).toBe(60);
  });

  it('hold hourly metrics for at most the last 90 days, ending at the current UTC hour', () => {
    const lastHour = Date.parse('2026-03-31T10:00:00Z');
    const hours = ads.flatMap((ad) => ad.hourly!.map((row) => row.hour));
    expect(Math.max(...hours)).toBe(lastHour);
    expect(Math.min(...hours)).toBe(lastHour - (90 * 24 - 1) * HOUR_MS);
    const fullRunners = ads.filter((ad) => ad.hourly!.length > 80 * 24);
    expect(fullRunners.length).toBeGreaterThan(10);
    // Some ads did not run on some days (started late, paused, or skipped a day).
    const daysRun = (ad: (typeof ads)[number]) => new Set(ad.hourly!.map((row) => Math.floor(row.hour / (24 * HOUR_MS)))).size;
    expect(ads.filter((ad) => daysRun(ad) < 90).length).toBeGreaterThan(10);
  });

  it('spend more in the local evening than at night', () => {
    const euAd = ads.find((ad) => ad.currency === 'EUR')!;
    const spendAtUtcHour = (utcHour: number) =>
      euAd.hourly!.filter((row) => new Date(row.hour).getUTCHours() === utcHour).reduce((sum, row) => sum + row.spend, 0);
    expect(spendAtUtcHour(19)).toBeGreaterThan(4 * spendAtUtcHour(3));
  });

  it('come with valid exchange rates for every date the metrics touch', () => {
    const fx = generateDemoFxRates(options);
    expect(fx).toHaveLength(91);
    expect(fx[0]!.date).toBe('2025-12-31'); // the first metrics hour is 2025-12-31T11:00Z
    expect(fx.at(-1)!.date).toBe('2026-03-31');
    for (const entry of fx) {
      expect(fxRatesEntrySchema.parse(entry)).toEqual(entry);
      expect(Object.keys(entry.rates).sort()).toEqual(['AUD', 'CAD', 'EUR', 'GBP', 'JPY', 'USD']);
      expect(entry.rates.USD).toBe(1);
    }
  });

  it('generate 300 ads x 90 days quickly enough to scale to benchmark sizes', () => {
    const started = performance.now();
    let rows = 0;
    for (const ad of generateDemoAds({ ...options, ads: 300 })) rows += ad.hourly!.length;
    expect(rows).toBeGreaterThan(300 * 1000);
    // Roughly 0.3 s per 1,000 ads on a laptop; the bound only catches an accidental blow-up.
    expect(performance.now() - started).toBeLessThan(5000);
  });
});
