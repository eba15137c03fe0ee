import * as z from 'zod/mini';
import './zod-mini';
import { findDimension, measureFamily } from '../catalog/dimensions';
import { findMeasure } from '../catalog/measures';
import { mixedFamilyIssues } from '../analytics/filter-namespaces';
import { filterSchemaForContext } from '../filters/filter-schema';
import { bucketsOf, GRANULARITIES } from '../time/buckets';
import { rangesOverlap, resolveDateRange, type InstantRange } from '../time/date-range';
import { isIsoDate } from '../time/iso-8601';
import { addDays } from '../time/zoned-time';
import { whenMembersValid } from './cross-field';
import { defaultOrderSettings, queryOrderSettingsSchema } from './order-settings';
import { compareDateRangeSchema, dateRangeSchema, queryCurrencySchema, queryTimeZoneSchema } from './query-fields';

/**
 * POST /db-mgmt/api/query. Every cap is here, and every message says how to get under it.
 * - measures: 1 to 30 ids of the measures catalog in context `query`, each a string or `{ id }`;
 * - dimensions: 0 to 5 ids of the dimensions catalog, each splitting only measures of its family;
 * - a range spans at most `maxRangeDays`; both ranges together hold at most `maxBuckets` buckets.
 */
export const QUERY_LIMITS = { measures: 30, dimensions: 5, maxRangeDays: 732, maxBuckets: 10_000, maxPoints: 200_000 } as const;

const measureItem = z
  .pipe(
    z.union([z.string().check(z.maxLength(100)), z.strictObject({ id: z.string().check(z.maxLength(100)) })], {
      error: 'A measure is a measure id such as "orders.total_revenue", or an object { "id": "..." }',
    }),
    z.transform((item: string | { id: string }) => (typeof item === 'string' ? item : item.id)),
  )
  .check(
    z.refine((id) => findMeasure(id)?.contexts.includes('query') === true, {
      error: (issue) => `Unknown measure ${JSON.stringify(issue.input)}; GET /db-mgmt/api/measures?context=query lists the measures this query computes`,
    }),
  );

const dimensionItem = z.string().check(
  z.maxLength(100),
  z.refine((id) => findDimension(id) !== undefined, {
    error: (issue) => `Unknown dimension ${JSON.stringify(issue.input)}; GET /db-mgmt/api/measures lists the dimensions`,
  }),
);

type DateRangeInput = z.output<typeof dateRangeSchema>;

const queryRequestMembers = z.strictObject({
  pixelId: z.string().check(z.minLength(1)),
  measures: z.array(measureItem).check(z.minLength(1), z.maxLength(QUERY_LIMITS.measures)),
  dimensions: z._default(z.array(dimensionItem).check(z.maxLength(QUERY_LIMITS.dimensions)), []),
  granularity: z._default(z.enum(GRANULARITIES), 'none'),
  dateRange: dateRangeSchema,
  compareDateRange: z.optional(compareDateRangeSchema),
  timezone: queryTimeZoneSchema,
  currency: queryCurrencySchema,
  filters: z.optional(filterSchemaForContext('query_measures')),
  orderSettings: z._default(queryOrderSettingsSchema, defaultOrderSettings),
});
type QueryRequestMembers = z.output<typeof queryRequestMembers>;

export const queryRequestSchema = z.pipe(
  // Calendar arithmetic below sees real dates and zones only; any surprise is still a 400.
  queryRequestMembers.check(
    z.superRefine((request, ctx) => {
      const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
      const dimensions = request.dimensions;
      new Set(dimensions).size !== dimensions.length && issue(['dimensions'], 'A dimension may be listed once');
      for (const measure of new Set(request.measures)) {
        const family = measureFamily(measure);
        dimensions.forEach((dimension, i) => {
          const dimensionFamily = findDimension(dimension)!.family;
          if (family !== dimensionFamily) {
            issue(
              ['dimensions', i],
              family === 'core'
                ? `Measure '${measure}' cannot be split by dimension '${dimension}': blended core.* measures take no dimensions`
                : `Measure '${measure}' cannot be split by dimension '${dimension}': ${family} measures split only by ${family}.* dimensions`,
            );
          }
        });
      }
      if (request.filters) for (const problem of mixedFamilyIssues(request.filters, ['filters'])) issue(problem.path, problem.message);

      try {
        const primary = checkedRange(request.dateRange, request.timezone, ['dateRange'], issue);
        const compareInput = request.compareDateRange;
        const compare = compareInput ? checkedRange(compareInput, request.timezone, ['compareDateRange'], issue) : undefined;
        if (!primary || (compareInput && !compare)) return;
        if (compare && rangesOverlap(primary, compare)) issue(['compareDateRange'], 'compareDateRange must not overlap dateRange');
        const implied = !compareInput && request.granularity !== 'none' ? precedingRange(request.dateRange, primary, request.timezone) : undefined;
        const ranges = [primary, compare ?? implied?.range].filter((range): range is InstantRange => range !== undefined);
        let total = 0;
        for (const range of ranges) {
          const buckets = bucketsOf(range, request.granularity, request.timezone, QUERY_LIMITS.maxBuckets);
          total += buckets?.length ?? QUERY_LIMITS.maxBuckets + 1;
        }
        if (total > QUERY_LIMITS.maxBuckets) {
          issue(
            ['granularity'],
            `The query would have more than ${QUERY_LIMITS.maxBuckets.toLocaleString('en-US')} time buckets (dateRange and the comparison range together); ` +
              'choose a coarser granularity or a shorter dateRange',
          );
        }
      } catch {
        issue(['dateRange'], 'The range cannot be read in this time zone; send plain dates (YYYY-MM-DD)');
      }
    }, whenMembersValid),
  ),
  z.transform((request: QueryRequestMembers) => {
    const primaryRange = resolveDateRange(request.dateRange, request.timezone);
    const implied = !request.compareDateRange && request.granularity !== 'none' ? precedingRange(request.dateRange, primaryRange, request.timezone) : undefined;
    const compareDateRange = request.compareDateRange ?? implied?.echo;
    return {
      ...request,
      measures: [...new Set(request.measures)],
      compareDateRange,
      primaryRange,
      compareRange: compareDateRange ? resolveDateRange(compareDateRange, request.timezone) : undefined,
    };
  }),
);

export type QueryRequest = z.output<typeof queryRequestSchema>;

function checkedRange(
  range: DateRangeInput,
  timeZone: string,
  path: string[],
  issue: (path: (string | number)[], message: string) => void,
): InstantRange | undefined {
  const resolved = resolveDateRange(range, timeZone);
  if (!Number.isFinite(resolved.start) || !Number.isFinite(resolved.end)) {
    issue(path, 'The range cannot be read in this time zone');
    return undefined;
  }
  if (resolved.start >= resolved.end) {
    issue([...path, 'end'], 'end must not be before start');
    return undefined;
  }
  if (resolved.end - resolved.start > QUERY_LIMITS.maxRangeDays * 86_400_000 + 3_600_000) {
    issue(path, `A range may span at most ${QUERY_LIMITS.maxRangeDays} days; split a longer period into several queries`);
    return undefined;
  }
  return resolved;
}

const isDateOnly = (bound: string) => isIsoDate(bound);

/**
 * The comparison period when none is given: the period of equal length just before `dateRange`.
 * For plain dates it is the same number of calendar days in the zone (so a range holding a
 * daylight-saving day compares with whole days too); for date-times the same length of time.
 */
export function precedingRange(input: DateRangeInput, primary: InstantRange, timeZone: string): { echo: DateRangeInput; range: InstantRange } {
  if (isDateOnly(input.start) && isDateOnly(input.end)) {
    const days = Math.round((Date.parse(`${input.end}T00:00:00Z`) - Date.parse(`${input.start}T00:00:00Z`)) / 86_400_000) + 1;
    const echo = { start: addDays(input.start, -days), end: addDays(input.start, -1) };
    return { echo, range: resolveDateRange(echo, timeZone) };
  }
  const length = primary.end - primary.start;
  const range = { start: primary.start - length, end: primary.start };
  return { echo: { start: new Date(range.start).toISOString(), end: new Date(range.end).toISOString() }, range };
}
