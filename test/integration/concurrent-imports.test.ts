import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { importAdsFile } from '../../shared/ads/import-ads';
import { calendarOf, cellsFromHours } from '../../shared/ads/ad-series';
import { readAdCells, readAdHours } from '../../shared/analytics/store/ad-facts';
import { readFxTable as loadFxTable } from '../../shared/analytics/store/fx-rates';
import type { Ad } from '../../shared/schemas/ad-import';
import { hourRow, validAdInput } from '../support/ad-fixtures';
import { useFreshTable } from '../support/fresh-table';

const dir = mkdtempSync(join(tmpdir(), 'concurrent-imports-'));
const MARCH = { start: Date.parse('2026-03-01T00:00:00Z'), end: Date.parse('2026-04-01T00:00:00Z') };
const HOUR = 3_600_000;
const hourOfMarch = (index: number) => new Date(MARCH.start + index * HOUR).toISOString().replace('.000Z', 'Z');
const adOf = (adId: string) => ({ platform: 'meta', adId }) as Ad;
const loadHourlyMetrics = async (pixelId: string, adId: string) => (await readAdHours(pixelId, [adOf(adId)], MARCH)).get(`meta#${adId}`) ?? [];

beforeAll(async () => {
  await useFreshTable();
});

let files = 0;
/** An .ndjson import file, as the CLI reads it. */
function ndjson(lines: unknown[]): string {
  const path = join(dir, `import-${files++}.ndjson`);
  writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n'));
  return path;
}

describe('imports running at the same time (DuckDB, the local store)', () => {
  it('four imports of different weeks of the same ads and month store every hour of all four', async () => {
    // Prepare: 20 ads; import w holds week w of March for every ad, spend = w + 1.
    const adIds = Array.from({ length: 20 }, (_, i) => `ad-${i}`);
    const weeks = [0, 1, 2, 3].map((week) =>
      ndjson(adIds.map((adId) => validAdInput({ adId, hourly: Array.from({ length: 7 * 24 }, (_, h) => hourRow(hourOfMarch(week * 168 + h), week + 1)) }))),
    );

    // Act: all four at once.
    const summaries = await Promise.all(weeks.map((path) => importAdsFile('px_weeks', path)));

    // Assess: nothing rejected, and each ad holds 4 × 168 hours, each week with its own spend.
    expect(summaries.map((summary) => summary.rejected)).toEqual([0, 0, 0, 0]);
    for (const adId of adIds) {
      const hours = await loadHourlyMetrics('px_weeks', adId);
      expect(hours).toHaveLength(4 * 168);
      expect(hours.map((row) => row.spend)).toEqual([0, 1, 2, 3].flatMap((week) => Array.from({ length: 168 }, () => week + 1)));
    }
  });

  it('two imports of the same ad and month, whatever their overlap, end with the union of their hours', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: 743 }), { minLength: 1, maxLength: 60 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 743 }), { minLength: 1, maxLength: 60 }),
        async (hoursOfA, hoursOfB) => {
          const pixelId = `px_union_${run++}`;
          const importOf = (hours: number[], spend: number) => ndjson([validAdInput({ hourly: hours.map((h) => hourRow(hourOfMarch(h), spend)) })]);

          await Promise.all([importAdsFile(pixelId, importOf(hoursOfA, 1)), importAdsFile(pixelId, importOf(hoursOfB, 2))]);

          const stored = await loadHourlyMetrics(pixelId, 'a1');
          const union = [...new Set([...hoursOfA, ...hoursOfB])].sort((x, y) => x - y);
          expect(stored.map((row) => (row.hour - MARCH.start) / HOUR)).toEqual(union);
          for (const row of stored) {
            const hour = (row.hour - MARCH.start) / HOUR;
            // An hour both gave holds one of the two whole rows: the later import's.
            const candidates = [hoursOfA.includes(hour) ? 1 : undefined, hoursOfB.includes(hour) ? 2 : undefined].filter(Boolean);
            expect(candidates).toContain(row.spend);
          }
          // The day cells are those of the union.
          const calendar = calendarOf(MARCH, 'UTC');
          expect((await readAdCells(pixelId, [adOf('a1')], calendar)).get('meta#a1')).toEqual(cellsFromHours(stored, calendar));
        },
      ),
      { numRuns: 15 },
    );
  });

  it('two imports adding different currencies to the same dates keep both', async () => {
    const dates = ['2026-03-01', '2026-03-02', '2026-03-03'];
    const ratesOf = (currency: string, rate: number) => ndjson([{ fxRates: dates.map((date) => ({ date, rates: { [currency]: rate } })) }]);

    await Promise.all([importAdsFile('px_fx', ratesOf('EUR', 0.9)), importAdsFile('px_fx', ratesOf('GBP', 0.8)), importAdsFile('px_fx', ratesOf('JPY', 150))]);

    const table = await loadFxTable('px_fx');
    for (const date of dates) expect([table.rateOn('EUR', date), table.rateOn('GBP', date), table.rateOn('JPY', date)]).toEqual([0.9, 0.8, 150]);
  });
});
