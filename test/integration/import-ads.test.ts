import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ImportFileError, formatSummary, importAdsFile } from '../../shared/ads/import-ads';
import { formatPath, formatRejection, type ImportRejection } from '../../shared/import/rejections';
import { readAdHours, readAds as listAds } from '../../shared/analytics/store/ad-facts';
import { readFxTable as loadFxTable } from '../../shared/analytics/store/fx-rates';
import type { FxTable } from '../../shared/ads/fx-table';
import type { Ad } from '../../shared/schemas/ad-import';
import { hourRow, validAdInput } from '../support/ad-fixtures';
import { useFreshTable } from '../support/fresh-table';

const dir = mkdtempSync(join(tmpdir(), 'import-ads-'));
beforeAll(async () => {
  await useFreshTable();
});

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function importFile(pixelId: string, path: string) {
  const rejections: ImportRejection[] = [];
  const summary = await importAdsFile(pixelId, path, { onRejection: (rejection) => rejections.push(rejection) });
  return { summary, rejections: rejections.map(formatRejection) };
}

const MARCH = { start: Date.parse('2026-03-01T00:00:00Z'), end: Date.parse('2026-04-01T00:00:00Z') };
/** The stored March hours of one ad. */
const loadHourlyMetrics = async (pixelId: string, ad: Pick<Ad, 'platform' | 'adId'>) => (await readAdHours(pixelId, [ad as Ad], MARCH)).get(`${ad.platform}#${ad.adId}`) ?? [];
/** The rates in force on a date, of the currencies these tests use. */
const ratesOn = (fx: FxTable, date: string) =>
  Object.fromEntries(['USD', 'EUR', 'GBP'].flatMap((currency) => (fx.rateOn(currency, date) === undefined ? [] : [[currency, fx.rateOn(currency, date)]])));
const twoHours = [hourRow('2026-03-01T13:00:00Z', 1.5), hourRow('2026-03-01T14:00:00Z', 2.25)];

describe('import of a .json document', () => {
  it('stores the valid records and reports each invalid one with its location, path and reason', async () => {
    const path = file(
      'mixed.json',
      JSON.stringify({
        fxRates: [
          { date: '2026-03-01', rates: { USD: 1, EUR: 0.8 } },
          { date: '2026-03-02', rates: { USD: 1, EURO: 0.9 } },
        ],
        ads: [
          validAdInput({ adId: 'good-1', hourly: twoHours }),
          validAdInput({ adId: 'bad', hourly: [hourRow('2026-03-01T13:00:00Z'), hourRow('2026-03-01T14:30:00Z')] }),
          validAdInput({ adId: 'good-2', platform: 'google', currency: 'USD' }),
          validAdInput({ adId: 'bad-2', currency: 'XYZ', extra: true }),
        ],
      }),
    );

    const { summary, rejections } = await importFile('px_json', path);

    expect(summary).toEqual({ ads: 2, hourlyRows: 3, fxDates: 1, rejected: 3 });
    expect(rejections).toEqual([
      "Rejected fxRates[1]: rates.EURO: 'EURO' is not an ISO 4217 currency code",
      'Rejected ads[1]: hourly[1].hour: Must be a UTC date-time exactly on the hour, like 2026-03-01T13:00:00Z',
      "Rejected ads[3]: currency: Must be an ISO 4217 currency code in capitals, like USD; extra: Unknown key 'extra' is not allowed",
    ]);
    expect((await listAds('px_json')).map((ad) => ad.adId)).toEqual(['good-2', 'good-1']);
    // Nothing of a rejected ad is stored, not even its valid first hour.
    expect(await loadHourlyMetrics('px_json', { platform: 'meta', adId: 'bad' })).toEqual([]);
    expect((await loadHourlyMetrics('px_json', { platform: 'meta', adId: 'good-1' })).map((row) => row.spend)).toEqual([1.5, 2.25]);
    expect(ratesOn(await loadFxTable('px_json'), '2026-03-02')).toEqual({ USD: 1, EUR: 0.8 });
  });

  it('accepts a document with only ads, only rates, or nothing', async () => {
    expect((await importFile('px_parts', file('ads-only.json', JSON.stringify({ ads: [validAdInput()] })))).summary).toEqual({ ads: 1, hourlyRows: 1, fxDates: 0, rejected: 0 });
    expect((await importFile('px_parts', file('fx-only.json', JSON.stringify({ fxRates: [{ date: '2026-03-01', rates: { USD: 1 } }] })))).summary).toEqual({ ads: 0, hourlyRows: 0, fxDates: 1, rejected: 0 });
    expect((await importFile('px_parts', file('empty.json', '{}'))).summary).toEqual({ ads: 0, hourlyRows: 0, fxDates: 0, rejected: 0 });
  });

  it.each([
    ['not JSON', '{"ads": [', /not valid JSON/],
    ['an array', '[]', /must hold one JSON object/],
    ['an unknown top-level key', JSON.stringify({ ads: [validAdInput()], campaigns: [] }), /unknown top-level key 'campaigns'; only fxRates and ads are allowed/],
    ['ads that is not an array', JSON.stringify({ ads: validAdInput() }), /ads must be an array/],
  ])('refuses a document that is %s as a whole and stores nothing', async (_, content, message) => {
    const path = file('broken.json', content);
    await expect(importFile('px_broken', path)).rejects.toThrow(message);
    await expect(importFile('px_broken', path)).rejects.toBeInstanceOf(ImportFileError);
    expect(await listAds('px_broken')).toEqual([]);
  });

  it('refuses a file type it does not know, and a missing file', async () => {
    await expect(importAdsFile('px_x', join(dir, 'ads.csv'))).rejects.toThrow('unsupported file type; use .json or .ndjson');
    await expect(importAdsFile('px_x', join(dir, 'missing.ndjson'))).rejects.toBeInstanceOf(ImportFileError);
  });
});

describe('import of an .ndjson stream', () => {
  it('reads one ad a line, fxRates lines anywhere, skips blank lines, and rejects bad lines by number', async () => {
    const lines = [
      JSON.stringify(validAdInput({ adId: 'n1', hourly: twoHours })),
      '',
      JSON.stringify({ fxRates: [{ date: '2026-03-01', rates: { USD: 1, GBP: 0.75 } }, { date: '2026-03-02', rates: {} }] }),
      '{"platform": "meta", ',
      JSON.stringify(validAdInput({ adId: 'n-bad', hourly: [hourRow('2026-03-01T13:00:00Z', -1)] })),
      '   ',
      JSON.stringify(validAdInput({ adId: 'n2', platform: 'tiktok', currency: 'GBP', hourly: undefined })),
      JSON.stringify({ fxRates: [{ date: '2026-03-05', rates: { USD: 1, GBP: 0.5 } }], note: 'x' }),
      '[1, 2]',
      JSON.stringify({ fxRates: [{ date: '2026-03-05', rates: { USD: 1, GBP: 0.5 } }] }),
    ];
    const { summary, rejections } = await importFile('px_nd', file('mixed.ndjson', `${lines.join('\r\n')}\n\n`));

    expect(summary).toEqual({ ads: 2, hourlyRows: 2, fxDates: 2, rejected: 5 });
    expect(rejections).toEqual([
      'Rejected line 3, fxRates[1]: rates: Must hold at least one rate',
      expect.stringMatching(/^Rejected line 4: Not valid JSON: /),
      'Rejected line 5: hourly[0].spend: Too small: expected number to be >=0',
      "Rejected line 8: note: Unknown key 'note': an exchange-rate line holds only fxRates",
      'Rejected line 9: Invalid input: expected object, received array',
    ]);
    expect((await listAds('px_nd')).map((ad) => ad.adId)).toEqual(['n1', 'n2']);
    const fx = await loadFxTable('px_nd');
    expect([ratesOn(fx, '2026-03-01'), ratesOn(fx, '2026-03-02'), ratesOn(fx, '2026-03-05')]).toEqual([
      { USD: 1, GBP: 0.75 },
      { USD: 1, GBP: 0.75 },
      { USD: 1, GBP: 0.5 },
    ]);
  });

  it('refuses a record holding what no request body may hold (unstorable numbers, forbidden keys), and imports the rest', async () => {
    const lines = [
      JSON.stringify(validAdInput({ adId: 'u1', hourly: [hourRow('2026-03-01T13:00:00Z', 1)] })).replace('"spend":1', '"spend":1e-200'),
      '{"fxRates": [{"date": "2026-03-01", "rates": {"USD": 1, "constructor": 2}}]}',
      JSON.stringify(validAdInput({ adId: 'u2' })),
    ];
    const { summary, rejections } = await importFile('px_unreadable', file('unreadable.ndjson', lines.join('\n')));
    expect(rejections).toEqual([
      'Rejected line 1: hourly[0].spend: Number out of range: it must be 0 or have a magnitude from 1e-130 to below 1e126',
      "Rejected line 2, fxRates[0]: rates.constructor: Key 'constructor' is not allowed",
    ]);
    expect(summary).toEqual({ ads: 1, hourlyRows: expect.any(Number), fxDates: 0, rejected: 2 });
    expect((await listAds('px_unreadable')).map((ad) => ad.adId)).toEqual(['u2']);
  });

  it('imports a long file and counts every row', async () => {
    const lines = Array.from({ length: 250 }, (_, i) => JSON.stringify(validAdInput({ adId: `b${String(i).padStart(3, '0')}`, hourly: twoHours })));
    const { summary } = await importFile('px_batches', file('many.ndjson', `\uFEFF${lines.join('\n')}`));
    expect(summary).toEqual({ ads: 250, hourlyRows: 500, fxDates: 0, rejected: 0 });
    expect(await listAds('px_batches')).toHaveLength(250);
  });

  it('re-importing the same file leaves the same data (a later import of the same rows supersedes the earlier)', async () => {
    const path = file('again.ndjson', JSON.stringify(validAdInput({ adId: 'again', hourly: twoHours })));
    await importFile('px_again', path);
    const first = await loadHourlyMetrics('px_again', { platform: 'meta', adId: 'again' });
    await importFile('px_again', path);
    expect(await loadHourlyMetrics('px_again', { platform: 'meta', adId: 'again' })).toEqual(first);
    expect(await listAds('px_again')).toHaveLength(1);
  });
});

describe('import output', () => {
  it('summarises in one line, with thousands separators and singulars', () => {
    expect(formatSummary('px_demo', { ads: 120, hourlyRows: 25_920, fxDates: 90, rejected: 2 })).toBe(
      'Imported 120 ads, 25,920 hourly rows, 90 exchange-rate dates into pixel px_demo (2 records rejected)',
    );
    expect(formatSummary('px_demo', { ads: 1, hourlyRows: 1, fxDates: 1, rejected: 1 })).toBe(
      'Imported 1 ad, 1 hourly row, 1 exchange-rate date into pixel px_demo (1 record rejected)',
    );
    expect(formatSummary('px_demo', { ads: 0, hourlyRows: 0, fxDates: 0, rejected: 0 })).toBe(
      'Imported 0 ads, 0 hourly rows, 0 exchange-rate dates into pixel px_demo',
    );
  });

  it('writes paths like code, and caps a record with very many problems at ten', () => {
    expect(formatPath(['hourly', '12', 'hour'])).toBe('hourly[12].hour');
    expect(formatPath(['rates', 'EUR'])).toBe('rates.EUR');
    expect(formatPath([])).toBe('');
    const problems = Array.from({ length: 13 }, (_, i) => ({ path: `hourly[${i}].spend`, message: 'bad' }));
    expect(formatRejection({ location: 'line 2', problems })).toMatch(/^Rejected line 2: hourly\[0\]\.spend: bad; .* hourly\[9\]\.spend: bad; and 3 more problems$/);
  });
});
