import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toValidationIssues } from '../../shared/http/zod-issues';
import {
  adImportSchema,
  fxRatesEntrySchema,
  hourlyMetricsSchema,
  parseHourlyRowsFast,
  toAdImportInput,
} from '../../shared/schemas/ad-import';
import { hourRow, validAdInput, validAdInputArbitrary, validHourRow } from '../support/ad-fixtures';

function issuesOf(ad: unknown) {
  const result = adImportSchema.safeParse(ad);
  return result.success ? [] : toValidationIssues(result.error).map(({ path, message }) => ({ path: path.join('.'), message }));
}

function without(field: string) {
  const ad: Record<string, unknown> = { ...validAdInput() };
  delete ad[field];
  return ad;
}

describe('ad import: a valid ad', () => {
  it('parses the ARCHITECTURE.md example into the stored form', () => {
    expect(adImportSchema.parse(validAdInput())).toEqual({
      platform: 'meta',
      accountId: 'act_1',
      accountName: 'Main',
      campaignId: 'c1',
      campaignName: 'Spring',
      adsetId: 's1',
      adsetName: 'Broad',
      adId: 'a1',
      adName: 'Video 1',
      status: 'ACTIVE',
      configuredStatus: 'ACTIVE',
      effectiveStatus: 'ACTIVE',
      currency: 'EUR',
      dailyBudget: 50,
      budgetRemaining: 20.5,
      amountSpent: 812.4,
      createdAt: '2026-01-10T09:00:00.000Z',
      updatedAt: '2026-03-02T10:00:00.000Z',
      hourly: [{ hour: Date.parse('2026-03-01T13:00:00Z'), spend: 1.5, impressions: 300, clicks: 4, conversions: 1, conversionValue: 30 }],
    });
  });

  it('stores absent budget fields as null and accepts explicit nulls', () => {
    const ad = without('dailyBudget');
    delete ad.budgetRemaining;
    expect(adImportSchema.parse({ ...ad, amountSpent: null })).toMatchObject({ dailyBudget: null, budgetRemaining: null, amountSpent: null });
  });

  it('accepts an ad without hourly metrics, and with an empty list', () => {
    expect(adImportSchema.parse(without('hourly')).hourly).toBeUndefined();
    expect(adImportSchema.parse(validAdInput({ hourly: [] })).hourly).toEqual([]);
  });

  it('resolves offsets in createdAt/updatedAt to UTC', () => {
    expect(adImportSchema.parse(validAdInput({ createdAt: '2026-01-10T09:00:00+02:00', updatedAt: '2026-03-02T10:00:00.5Z' }))).toMatchObject({
      createdAt: '2026-01-10T07:00:00.000Z',
      updatedAt: '2026-03-02T10:00:00.500Z',
    });
  });

  it('accepts zero amounts and counts, an hour written with zero milliseconds, and a leap day', () => {
    const hourly = [hourRow('2028-02-29T23:00:00.000Z', 0, { impressions: 0, clicks: 0, conversions: 0, conversionValue: 0 })];
    expect(adImportSchema.parse(validAdInput({ dailyBudget: 0, hourly })).hourly).toEqual([
      { hour: Date.parse('2028-02-29T23:00:00Z'), spend: 0, impressions: 0, clicks: 0, conversions: 0, conversionValue: 0 },
    ]);
  });

  it('accepts every platform', () => {
    for (const platform of ['meta', 'google', 'tiktok']) expect(issuesOf(validAdInput({ platform }))).toEqual([]);
  });
});

describe('ad import: every kind of invalid field is rejected at its path', () => {
  it.each([
    ['platform', 'facebook', 'platform'],
    ['platform', 'Meta', 'platform'],
    ['accountId', '', 'accountId'],
    ['adId', 42, 'adId'],
    ['adName', 'x'.repeat(513), 'adName'],
    ['campaignId', 'x'.repeat(257), 'campaignId'],
    ['status', '', 'status'],
    ['effectiveStatus', null, 'effectiveStatus'],
    ['currency', 'eur', 'currency'],
    ['currency', 'EURO', 'currency'],
    ['currency', 'XYZ', 'currency'],
    ['dailyBudget', -0.01, 'dailyBudget'],
    ['budgetRemaining', '20.5', 'budgetRemaining'],
    ['amountSpent', Number.NaN, 'amountSpent'],
    ['amountSpent', Number.POSITIVE_INFINITY, 'amountSpent'],
    ['createdAt', '2026-01-10', 'createdAt'],
    ['createdAt', '2026-02-30T09:00:00Z', 'createdAt'],
    ['updatedAt', '2026-01-10 09:00:00', 'updatedAt'],
    ['updatedAt', 1_767_000_000_000, 'updatedAt'],
    ['hourly', 'none', 'hourly'],
    ['hourly', [null], 'hourly.0'],
  ])('rejects %s = %j', (field, value, path) => {
    expect(issuesOf(validAdInput({ [field]: value }))).toEqual([{ path, message: expect.any(String) }]);
  });

  it.each(['platform', 'accountId', 'accountName', 'campaignId', 'campaignName', 'adsetId', 'adsetName', 'adId', 'adName', 'status', 'configuredStatus', 'effectiveStatus', 'currency', 'createdAt', 'updatedAt'])(
    'rejects an ad without %s as Required',
    (field) => {
      expect(issuesOf(without(field))).toEqual([{ path: field, message: 'Required' }]);
    },
  );

  it.each([
    ['hour', '2026-03-01T13:30:00Z', 'Must be a UTC date-time exactly on the hour, like 2026-03-01T13:00:00Z'],
    ['hour', '2026-03-01T13:00:01Z', 'Must be a UTC date-time exactly on the hour, like 2026-03-01T13:00:00Z'],
    ['hour', '2026-03-01T13:00:00.001Z', 'Must be a UTC date-time exactly on the hour, like 2026-03-01T13:00:00Z'],
    ['hour', '2026-03-01T14:00:00+01:00', 'Must be a UTC date-time exactly on the hour, like 2026-03-01T13:00:00Z'],
    ['hour', '2026-02-29T13:00:00Z', 'Must be a UTC date-time exactly on the hour, like 2026-03-01T13:00:00Z'],
    ['hour', '2026-03-01T24:00:00Z', 'Must be a UTC date-time exactly on the hour, like 2026-03-01T13:00:00Z'],
    ['hour', Date.parse('2026-03-01T13:00:00Z'), 'Invalid input: expected string, received number'],
    ['spend', -1, 'Too small: expected number to be >=0'],
    ['spend', '1.5', 'Invalid input: expected number, received string'],
    ['conversionValue', -0.5, 'Too small: expected number to be >=0'],
    ['impressions', 1.5, 'Invalid input: expected int, received number'],
    ['clicks', -1, 'Too small: expected number to be >=0'],
    ['conversions', 2 ** 53, 'Too big: expected int to be <=9007199254740991'],
  ])('rejects an hourly %s of %j', (field, value, message) => {
    const hourly = [hourRow('2026-03-01T12:00:00Z'), hourRow('2026-03-01T13:00:00Z', 1, { [field]: value })];
    expect(issuesOf(validAdInput({ hourly }))).toEqual([{ path: `hourly.1.${field}`, message }]);
  });

  it.each(['hour', 'spend', 'impressions', 'clicks', 'conversions', 'conversionValue'])('rejects an hourly row without %s', (field) => {
    const row: Record<string, unknown> = hourRow('2026-03-01T13:00:00Z');
    delete row[field];
    expect(issuesOf(validAdInput({ hourly: [row] }))).toEqual([{ path: `hourly.0.${field}`, message: 'Required' }]);
  });

  it('rejects an hour given twice for one ad, at the second occurrence', () => {
    const hourly = [hourRow('2026-03-01T13:00:00Z'), hourRow('2026-03-01T14:00:00Z'), hourRow('2026-03-01T13:00:00.000Z', 2)];
    expect(issuesOf(validAdInput({ hourly }))).toEqual([
      { path: 'hourly.2.hour', message: 'Duplicate hour 2026-03-01T13:00:00.000Z: each hour may appear once per ad' },
    ]);
  });

  it('rejects unknown keys on the ad and on an hourly row, one issue per key', () => {
    const hourly = [hourRow('2026-03-01T13:00:00Z', 1, { reach: 10 })];
    expect(issuesOf(validAdInput({ cpm: 3, ctr: 0.1, hourly }))).toEqual([
      { path: 'hourly.0.reach', message: "Unknown key 'reach' is not allowed" },
      { path: 'cpm', message: "Unknown key 'cpm' is not allowed" },
      { path: 'ctr', message: "Unknown key 'ctr' is not allowed" },
    ]);
  });

  it('reports every problem of an ad at once', () => {
    const hourly = [hourRow('2026-03-01T13:15:00Z'), hourRow('2026-03-01T14:00:00Z', -2)];
    expect(issuesOf(validAdInput({ platform: 'snap', currency: 'ABC', hourly })).map((issue) => issue.path)).toEqual([
      'platform',
      'currency',
      'hourly.0.hour',
      'hourly.1.spend',
    ]);
  });

  it.each([null, [], 'ad', 7])('rejects %j as an ad', (value) => {
    expect(issuesOf(value)).toEqual([{ path: '', message: expect.stringContaining('expected object') }]);
  });
});

describe('ad import: properties', () => {
  it('accepts any valid ad, and writing it back out parses to the same ad', () => {
    fc.assert(
      fc.property(validAdInputArbitrary, (input) => {
        const ad = adImportSchema.parse(input);
        expect(adImportSchema.parse(JSON.parse(JSON.stringify(toAdImportInput(ad))))).toEqual(ad);
      }),
      { numRuns: 300 },
    );
  });

  // The fast path and zod must agree on every row list, valid or not, or the two would disagree on what a file may hold.
  const anyValue = fc.oneof(fc.constant(undefined), fc.constant(null), fc.double(), fc.integer(), fc.string({ maxLength: 25 }), fc.boolean());
  const mutatedRow = fc
    .tuple(validHourRow, fc.constantFrom('hour', 'spend', 'impressions', 'clicks', 'conversions', 'conversionValue', 'extra'), anyValue, fc.boolean())
    .map(([row, field, value, remove]) => {
      const copy: Record<string, unknown> = { ...row };
      if (remove) delete copy[field];
      else copy[field] = value;
      return copy;
    });
  const rowList = fc.array(fc.oneof(validHourRow, mutatedRow, anyValue), { maxLength: 6 });

  it('the hourly fast path accepts exactly what the zod schema accepts, with the same result', () => {
    const reference = hourlyMetricsSchema.array();
    fc.assert(
      fc.property(rowList, (rows) => {
        const fast = parseHourlyRowsFast(rows);
        const slow = reference.safeParse(rows);
        expect(fast === undefined ? undefined : fast).toEqual(slow.success ? slow.data : undefined);
      }),
      { numRuns: 1000 },
    );
  });
});

describe('fx rates entry', () => {
  it('accepts a date with rates per USD', () => {
    expect(fxRatesEntrySchema.parse({ date: '2026-03-01', rates: { USD: 1, EUR: 0.92, JPY: 151.25 } })).toEqual({
      date: '2026-03-01',
      rates: { USD: 1, EUR: 0.92, JPY: 151.25 },
    });
  });

  it('does not require USD', () => {
    expect(fxRatesEntrySchema.safeParse({ date: '2026-03-01', rates: { EUR: 0.92 } }).success).toBe(true);
  });

  const issuesOfEntry = (entry: unknown) => {
    const result = fxRatesEntrySchema.safeParse(entry);
    return result.success ? [] : toValidationIssues(result.error).map(({ path, message }) => ({ path: path.join('.'), message }));
  };

  it.each([
    [{ date: '2026-3-1', rates: { USD: 1 } }, 'date', 'Must be a calendar date, like 2026-03-01'],
    [{ date: '2026-02-29', rates: { USD: 1 } }, 'date', 'Must be a calendar date, like 2026-03-01'],
    [{ date: '2026-03-01T00:00:00Z', rates: { USD: 1 } }, 'date', 'Must be a calendar date, like 2026-03-01'],
    [{ rates: { USD: 1 } }, 'date', 'Required'],
    [{ date: '2026-03-01' }, 'rates', 'Required'],
    [{ date: '2026-03-01', rates: {} }, 'rates', 'Must hold at least one rate'],
    [{ date: '2026-03-01', rates: { USD: 1, XYZ: 2 } }, 'rates.XYZ', "'XYZ' is not an ISO 4217 currency code"],
    [{ date: '2026-03-01', rates: { usd: 1 } }, 'rates.usd', "'usd' is not an ISO 4217 currency code"],
    [{ date: '2026-03-01', rates: { EUR: 0 } }, 'rates.EUR', 'Too small: expected number to be >0'],
    [{ date: '2026-03-01', rates: { EUR: -0.9 } }, 'rates.EUR', 'Too small: expected number to be >0'],
    [{ date: '2026-03-01', rates: { EUR: '0.9' } }, 'rates.EUR', 'Invalid input: expected number, received string'],
    [{ date: '2026-03-01', rates: { EUR: 0.9 }, source: 'ecb' }, 'source', "Unknown key 'source' is not allowed"],
  ])('rejects %j at %s', (entry, path, message) => {
    expect(issuesOfEntry(entry)).toEqual([{ path, message }]);
  });
});
