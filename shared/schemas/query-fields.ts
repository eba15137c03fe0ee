import * as z from 'zod/mini';
import './zod-mini';
import { resolveDateRange } from '../time/date-range';
import { rangeBoundSchema, timeZoneSchema } from './date-time';

/**
 * The members every analytics query shares (query-ads now, the query endpoints after it):
 * `dateRange`, `compareDateRange`, `timezone`, `currency`, and the rules that read a range in a
 * zone. A query schema composes these and runs `rangeProblems` only once its members are valid
 * (see `whenMembersValid`).
 */

const ISO_CURRENCIES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

/** ISO 4217, in capitals, as the runtime knows the list. */
export const currencySchema = z
  .string()
  .check(z.refine((code) => ISO_CURRENCIES.has(code), { message: 'Must be an ISO 4217 currency code in capitals, like "USD"', params: { code: 'invalid_value' } }));

/** `{start, end}`; how the bounds read depends on the zone, so order and span are checked by `rangeProblems`. */
export const dateRangeSchema = z.strictObject({ start: rangeBoundSchema, end: rangeBoundSchema });
export type DateRange = z.output<typeof dateRangeSchema>;

/** Same form as `dateRange`; a query decides what it compares. */
export const compareDateRangeSchema = dateRangeSchema;

/** The zone that reads the ranges and buckets the days. */
export const queryTimeZoneSchema = z._default(timeZoneSchema, 'UTC');

export const queryCurrencySchema = z._default(currencySchema, 'USD');

export interface RangeProblem {
  path: Array<string | number>;
  message: string;
}

/**
 * What is wrong with a well-formed range read in a zone: `end` not after `start`, or a span over
 * `maxDays` (plus an hour, for a daylight-saving day). Paths are relative to the range.
 */
export function rangeProblems(range: DateRange, timeZone: string, maxDays?: number): RangeProblem[] {
  const { start, end } = resolveDateRange(range, timeZone);
  if (start >= end) return [{ path: ['end'], message: 'end must be after start; a date-only end covers that whole day' }];
  if (maxDays !== undefined && end - start > maxDays * 86_400_000 + 3_600_000) {
    return [{ path: [], message: `A range may span at most ${maxDays} days` }];
  }
  return [];
}
