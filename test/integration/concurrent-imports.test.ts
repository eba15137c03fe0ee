import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { importAdsFile } from '../../shared/ads/import-ads';
import { loadHourlyMetrics, loadRollupsForAds } from '../../shared/store/ad-repository';
import { rollupMonth } from '../../shared/store/daily-rollup-codec';
import { loadFxTable } from '../../shared/store/fx-repository';
import { hourRow, validAdInput } from '../support/ad-fixtures';
import { useFreshTable } from '../support/fresh-table';

const dir = mkdtempSync(join(tmpdir(), 'concurrent-imports-'));
const MARCH = [new Date('2026-03-01T00:00:00Z'), new Date('2026-04-01T00:00:00Z')] as const;
const HOUR = 3_600_000;
const hourOfMarch = (index: number) => new Date(MARCH[0].getTime() + index * HOUR).toISOString().replace('.000Z', 'Z');

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

describe('imports running at the same time (real SDK, dynalite)', () => {
  it('four imports of different weeks of the same ads and month store every hour of all four', async () => {
    // Prepare: 20 ads; import w holds week w of March for every ad, spend = w + 1.
    const adIds = Array.from({ length: 20 }, (_, i) => `ad-${i}`);
    const weeks = [0, 1, 2, 3].map((week) =>
      ndjson(adIds.map((adId) => validAdInput({ adId, hourly: Array.from({ length: 7 * 24 }, (_, h) => hourRow(hourOfMarch(week * 168 + h), week + 1)) }))),
    );

    // Act: all four at once, in small batches so their writes interleave.
    const summaries = await Promise.all(weeks.map((path) => importAdsFile('px_weeks', path, { batchSize: 5 })));

    // Assess: nothing rejected, and each ad holds 4 × 168 hours, each week with its own spend.
    expect(summaries.map((summary) => summary.rejected)).toEqual([0, 0, 0, 0]);
    for (const adId of adIds) {
      const hours = await loadHourlyMetrics('px_weeks', { platform: 'meta', adId }, ...MARCH);
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

          const stored = await loadHourlyMetrics(pixelId, { platform: 'meta', adId: 'a1' }, ...MARCH);
          const union = [...new Set([...hoursOfA, ...hoursOfB])].sort((x, y) => x - y);
          expect(stored.map((row) => (row.hour - MARCH[0].getTime()) / HOUR)).toEqual(union);
          for (const row of stored) {
            const hour = (row.hour - MARCH[0].getTime()) / HOUR;
            // An hour both gave holds one of the two whole rows: the last writer's.
            const candidates = [hoursOfA.includes(hour) ? 1 : undefined, hoursOfB.includes(hour) ? 2 : undefined].filter(Boolean);
            expect(candidates).toContain(row.spend);
          }
          // The daily rollup is the one of the union, whichever import wrote it last.
          const { cells } = await loadRollupsForAds(pixelId, [{ platform: 'meta', adId: 'a1' }], ...MARCH, { kind: 'utc' });
          expect(cells.get('meta#a1')).toEqual(rollupMonth('2026-03', stored, 'UTC'));
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
    for (const date of dates) expect(table.ratesOn(date)).toEqual({ EUR: 0.9, GBP: 0.8, JPY: 150 });
  });
});
