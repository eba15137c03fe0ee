import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { updateAccount } from '../../shared/account/account-service';
import { queryAds } from '../../shared/ads/query-ads-service';
import { adImportSchema } from '../../shared/schemas/ad-import';
import { queryAdsRequestSchema } from '../../shared/schemas/query-ads';
import { upsertAds } from '../../shared/store/ad-repository';
import { upsertFxRates } from '../../shared/store/fx-repository';
import { addDays } from '../../shared/time/zoned-time';
import { hourlyMetricRows, validAdInput } from '../support/ad-fixtures';
import { useFreshTable } from '../support/fresh-table';

const FIRST_HOUR = Date.parse('2026-02-20T00:00:00Z');
const ZONES = ['America/New_York', 'Europe/Paris', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Lord_Howe', 'Pacific/Kiritimati', 'America/St_Johns'];

beforeAll(async () => {
  await useFreshTable();
});

const hours = hourlyMetricRows(FIRST_HOUR, 40, 120);

let run = 0;

describe('query-ads from daily rollups', () => {
  it('answers exactly what the hours answer, for random hours, reporting zones, ranges and currencies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(hours, { minLength: 1, maxLength: 3 }),
        fc.constantFrom(...ZONES),
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 0, max: 15 }),
        fc.constantFrom('USD', 'EUR'),
        async (adsHours, zone, startOffset, length, currency) => {
          run++;
          // The same ads in two pixels: one whose reporting zone is the query's (rollups), one whose is not (hours).
          const withRollups = `px_rollups_${run}`;
          const withHours = `px_hours_${run}`;
          const ads = adsHours.map((hourly, i) =>
            adImportSchema.parse(validAdInput({ adId: `ad${i}`, currency: i % 2 === 0 ? 'EUR' : 'USD', hourly })),
          );
          for (const [pixel, reportingZone] of [[withRollups, zone], [withHours, 'UTC']] as const) {
            await updateAccount({ pixelId: pixel, patch: { timezone: reportingZone }, apiKeyPk: 'ak_test', requestTime: new Date() });
            await upsertFxRates(pixel, [
              { date: '2026-02-01', rates: { USD: 1, EUR: 0.9 } },
              { date: '2026-03-01', rates: { USD: 1, EUR: 0.8 } },
              { date: '2026-03-02', rates: { USD: 1, EUR: 0.85 } },
            ]);
            await upsertAds(pixel, ads);
          }
          const start = addDays('2026-02-19', startOffset);
          const body = {
            measures: ['channel.spend', 'channel.impressions', 'channel.ctr', 'channel.roas', 'channel.conversion_value', 'meta.spend'],
            dateRange: { start, end: addDays(start, length) },
            compareDateRange: { start: addDays(start, -length - 1), end: addDays(start, -1) },
            timezone: zone,
            currency,
          };
          const ask = (pixelId: string) => queryAds(pixelId, queryAdsRequestSchema.parse({ pixelId, ...body }));
          const [fromRollups, fromHours] = await Promise.all([ask(withRollups), ask(withHours)]);
          expect(fromRollups).toEqual(fromHours);
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
});
