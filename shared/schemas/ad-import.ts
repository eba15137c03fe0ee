import * as z from 'zod';
import { AD_PLATFORMS, type AdPlatform } from '../catalog/measures';
import { isIsoDate, isIsoInstant } from '../time/iso-8601';

/**
 * The ad import format (ARCHITECTURE.md, "Ad import format"): what `npm run import-ads` reads and
 * what the ad repository stores. Every object is strict, so a misspelt field is reported instead
 * of silently dropped.
 *
 * Parsing also normalises, so that stored values compare and sort simply:
 * - `createdAt`/`updatedAt` become UTC `toISOString()` strings (offsets resolved, at most
 *   millisecond precision), so ordering by them is ordering by the string;
 * - an hourly `hour` becomes epoch milliseconds of the UTC hour start;
 * - absent budget fields become `null`, and a `-0` amount becomes `0`.
 */
/** The ad platforms are the catalog's: one list decides both what can be imported and measured. */
export const PLATFORMS = AD_PLATFORMS;
export type Platform = AdPlatform;

export const AD_IMPORT_LIMITS = {
  idLength: 256,
  nameLength: 512,
  statusLength: 100,
} as const;

const CURRENCY_CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

export function isCurrencyCode(value: string): boolean {
  return CURRENCY_CODES.has(value);
}

/** Zod's message for a missing key names the type it expected; "Required" says what to do. */
const required = { error: (issue: { input?: unknown }) => (issue.input === undefined ? 'Required' : undefined) };

const currencyCode = z.string(required).refine(isCurrencyCode, { message: 'Must be an ISO 4217 currency code in capitals, like USD' });

const id = z.string(required).min(1, 'Must not be empty').max(AD_IMPORT_LIMITS.idLength);
const name = z.string(required).min(1, 'Must not be empty').max(AD_IMPORT_LIMITS.nameLength);
const status = z.string(required).min(1, 'Must not be empty').max(AD_IMPORT_LIMITS.statusLength);

/** `-0` survives float64 but not every store or JSON, so it is folded into 0 where it is kept as metadata. */
const amount = z
  .number(required)
  .nonnegative()
  .transform((value) => value + 0)
  .nullable()
  .default(null);

const dateTime = z
  .string(required)
  .refine(isIsoInstant, 'Must be an ISO 8601 date-time with Z or an offset, like 2026-03-01T13:00:00Z')
  .transform((value) => new Date(value).toISOString());

const UTC_HOUR = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):00:00(?:\.0+)?Z$/;

/** Epoch ms of an ISO UTC date-time that falls exactly on an hour, or undefined. */
export function parseUtcHour(value: string): number | undefined {
  const match = UTC_HOUR.exec(value);
  if (!match) return undefined;
  const [, year, month, day, hour] = match.map(Number) as [number, number, number, number, number];
  const ms = Date.UTC(year, month - 1, day, hour);
  const back = new Date(ms);
  // Date.UTC rolls 2026-02-30 over into March; a date that does not come back unchanged does not exist.
  const exists = back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day && hour < 24;
  return exists ? ms : undefined;
}

const utcHour = z.string(required).transform((value, ctx) => {
  const ms = parseUtcHour(value);
  if (ms === undefined) {
    ctx.addIssue({ code: 'custom', message: 'Must be a UTC date-time exactly on the hour, like 2026-03-01T13:00:00Z' });
    return z.NEVER;
  }
  return ms;
});

const count = z.int(required).nonnegative();
const metric = z.number(required).nonnegative();

export const hourlyMetricsSchema = z.strictObject({
  hour: utcHour,
  spend: metric,
  impressions: count,
  clicks: count,
  conversions: count,
  conversionValue: metric,
});

export type HourlyMetricsRow = z.output<typeof hourlyMetricsSchema>;
type HourlyMetricsRowInput = z.input<typeof hourlyMetricsSchema>;

const hourlyRowsSchema = z.array(hourlyMetricsSchema);

/**
 * `hourlyRowsSchema`, with a hand-written fast path: an ad carries thousands of rows (2,160 for
 * 90 days) and zod spends about 4 µs on each, which dominates a bulk import. Rows the fast path
 * accepts are exactly the rows the schema accepts (a property test holds the two together); any
 * doubt falls back to the schema, which then reports the issues with their paths.
 */
const hourlyRows = z
  .unknown()
  .transform((value, ctx) => {
    let rows = parseHourlyRowsFast(value);
    if (!rows) {
      const parsed = hourlyRowsSchema.safeParse(value);
      if (!parsed.success) {
        for (const issue of parsed.error.issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0] & object);
        return z.NEVER;
      }
      rows = parsed.data;
    }
    const seen = new Set<number>();
    rows.forEach((row, index) => {
      if (seen.has(row.hour)) {
        ctx.addIssue({ code: 'custom', path: [index, 'hour'], message: `Duplicate hour ${new Date(row.hour).toISOString()}: each hour may appear once per ad` });
      }
      seen.add(row.hour);
    });
    return rows;
  }) as unknown as z.ZodType<HourlyMetricsRow[], HourlyMetricsRowInput[]>;

export function parseHourlyRowsFast(value: unknown): HourlyMetricsRow[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const rows = new Array<HourlyMetricsRow>(value.length);
  for (let index = 0; index < value.length; index++) {
    const row: unknown = value[index];
    if (typeof row !== 'object' || row === null || Array.isArray(row)) return undefined;
    const { hour, spend, impressions, clicks, conversions, conversionValue } = row as Record<string, unknown>;
    let keys = 0;
    for (const key in row) if (Object.hasOwn(row, key)) keys++;
    // Six own keys, and the six below all defined: exactly the schema's keys, nothing unknown.
    if (keys !== 6 || typeof hour !== 'string' || !isAmount(spend) || !isAmount(conversionValue)) return undefined;
    if (!isCount(impressions) || !isCount(clicks) || !isCount(conversions)) return undefined;
    const ms = parseUtcHour(hour);
    if (ms === undefined) return undefined;
    rows[index] = { hour: ms, spend, impressions, clicks, conversions, conversionValue };
  }
  return rows;
}

const isAmount = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

export const adImportSchema = z.strictObject({
  platform: z.enum(PLATFORMS, required),
  accountId: id,
  accountName: name,
  campaignId: id,
  campaignName: name,
  adsetId: id,
  adsetName: name,
  adId: id,
  adName: name,
  status,
  configuredStatus: status,
  effectiveStatus: status,
  currency: currencyCode,
  dailyBudget: amount,
  budgetRemaining: amount,
  amountSpent: amount,
  createdAt: dateTime,
  updatedAt: dateTime,
  hourly: hourlyRows.optional(),
});

export type AdImport = z.output<typeof adImportSchema>;
/** An ad as a file or a client writes it (hours as ISO strings, budgets optional). */
export type AdImportInput = z.input<typeof adImportSchema>;
/** The stored metadata of an ad: everything but its metrics. */
export type Ad = Omit<AdImport, 'hourly'>;

export const fxRatesEntrySchema = z.strictObject({
  date: z.string(required).refine(isIsoDate, 'Must be a calendar date, like 2026-03-01'),
  rates: z
    .record(z.string(), z.number().positive(), required)
    .superRefine((rates, ctx) => {
      const codes = Object.keys(rates);
      if (codes.length === 0) ctx.addIssue({ code: 'custom', message: 'Must hold at least one rate' });
      for (const code of codes) {
        if (!isCurrencyCode(code)) ctx.addIssue({ code: 'custom', path: [code], message: `'${code}' is not an ISO 4217 currency code` });
      }
    }),
});

/** One day's exchange rates: units of each currency per 1 USD. */
export type FxRatesEntry = z.output<typeof fxRatesEntrySchema>;

/**
 * The inverse of parsing: an ad as the import format writes it. Files written from it parse back
 * to the same ad, which is how tests and benchmarks produce import files from generated ads.
 */
export function toAdImportInput(ad: AdImport): AdImportInput {
  const { hourly, ...metadata } = ad;
  return {
    ...metadata,
    ...(hourly ? { hourly: hourly.map((row) => ({ ...row, hour: new Date(row.hour).toISOString().replace('.000Z', 'Z') })) } : {}),
  };
}
