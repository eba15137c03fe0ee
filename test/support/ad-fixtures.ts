import fc from 'fast-check';
import { PLATFORMS, type AdImportInput } from '../../shared/schemas/ad-import';

/** The ARCHITECTURE.md example ad, as a file would carry it. */
export function validAdInput(overrides: Record<string, unknown> = {}): AdImportInput {
  return {
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
    createdAt: '2026-01-10T09:00:00Z',
    updatedAt: '2026-03-02T10:00:00Z',
    hourly: [{ hour: '2026-03-01T13:00:00Z', spend: 1.5, impressions: 300, clicks: 4, conversions: 1, conversionValue: 30 }],
    ...overrides,
  } as AdImportInput;
}

export function hourRow(hour: string, spend = 1, overrides: Record<string, unknown> = {}) {
  return { hour, spend, impressions: 100, clicks: 3, conversions: 1, conversionValue: 25, ...overrides };
}

const HOUR_MS = 3_600_000;
/** Hours from 2020 to 2031: spans years, months of every length and leap days. */
const hourIndex = fc.integer({ min: Date.UTC(2020, 0, 1) / HOUR_MS, max: Date.UTC(2031, 0, 1) / HOUR_MS });
const hourText = hourIndex.chain((index) =>
  fc.constantFrom(
    new Date(index * HOUR_MS).toISOString().replace('.000Z', 'Z'),
    new Date(index * HOUR_MS).toISOString(),
  ),
);

const amount = fc.double({ min: 0, max: 1e15, noNaN: true, noDefaultInfinity: true });
const count = fc.oneof(fc.nat({ max: 10_000 }), fc.maxSafeNat());

export const validHourRow = fc.record({
  hour: hourText,
  spend: amount,
  impressions: count,
  clicks: count,
  conversions: count,
  conversionValue: amount,
});

/** Any Unicode, within the schema's length limits (which count UTF-16 code units). */
const text = (limit: number) => fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 }).filter((value) => value.length <= limit);
const dateTime = fc
  .date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true })
  .chain((date) =>
    fc.constantFrom(
      date.toISOString(),
      date.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      // The same instant written with a +02:00 offset.
      new Date(date.getTime() + 2 * HOUR_MS).toISOString().replace('Z', '+02:00'),
    ),
  );

/** Any ad the import format accepts, as a file would carry it (budgets and hourly sometimes absent). */
export const validAdInputArbitrary: fc.Arbitrary<AdImportInput> = fc.record(
  {
    platform: fc.constantFrom(...PLATFORMS),
    accountId: text(256),
    accountName: text(512),
    campaignId: text(256),
    campaignName: text(512),
    adsetId: text(256),
    adsetName: text(512),
    adId: fc.oneof(text(256), fc.constant('ad#with#hashes')),
    adName: text(512),
    status: fc.constantFrom('ACTIVE', 'PAUSED', 'DELETED', 'ENABLED'),
    configuredStatus: fc.constantFrom('ACTIVE', 'PAUSED'),
    effectiveStatus: fc.constantFrom('ACTIVE', 'PAUSED', 'CAMPAIGN_PAUSED', 'ADSET_PAUSED', 'WITH_ISSUES'),
    currency: fc.constantFrom(...Intl.supportedValuesOf('currency')),
    dailyBudget: fc.option(amount, { nil: null }),
    budgetRemaining: fc.option(amount, { nil: null }),
    amountSpent: fc.option(amount, { nil: null }),
    createdAt: dateTime,
    updatedAt: dateTime,
    hourly: fc.uniqueArray(validHourRow, { maxLength: 40, selector: (row) => Date.parse(row.hour) }),
  },
  { requiredKeys: ['platform', 'accountId', 'accountName', 'campaignId', 'campaignName', 'adsetId', 'adsetName', 'adId', 'adName', 'status', 'configuredStatus', 'effectiveStatus', 'currency', 'createdAt', 'updatedAt'] },
) as fc.Arbitrary<AdImportInput>;

/**
 * Distinct hours of ad metrics (whole cents of spend) among the `days` days from `firstHour`, in
 * random order: the cell tests compare what the store's cells answer with what these hours do.
 */
export function hourlyMetricRows(firstHour: number, days: number, maxRows: number) {
  return fc.uniqueArray(fc.integer({ min: 0, max: days * 24 }), { minLength: 1, maxLength: maxRows }).chain((indexes) =>
    fc.tuple(
      ...indexes.map((index) =>
        fc
          .record({
            spend: fc.integer({ min: 0, max: 100_000 }).map((cents) => cents / 100),
            impressions: fc.nat(5_000),
            clicks: fc.nat(50),
            conversions: fc.nat(5),
            conversionValue: fc.double({ min: 0, max: 1_000, noNaN: true }),
          })
          .map((metrics) => ({ hour: new Date(firstHour + index * 3_600_000).toISOString(), ...metrics })),
      ),
    ),
  );
}
