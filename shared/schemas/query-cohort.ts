import * as z from 'zod/mini';
import './zod-mini';
import { COHORT_MEASURE_IDS } from '../catalog/measures';
import { filterSchemaForContext } from '../filters/filter-schema';
import { resolveDateRange } from '../time/date-range';
import { whenMembersValid } from './cross-field';
import { defaultOrderSettings, queryOrderSettingsSchema } from './order-settings';
import { dateRangeSchema, queryCurrencySchema, queryTimeZoneSchema } from './query-fields';
import { QUERY_LIMITS } from './query-measures';

/**
 * POST /db-mgmt/api/query-cohort-analysis (issue P9). Every cap is here and in the README:
 * - measures: 1 to 30 of the seven cohort measures (strings, as the public service sends them);
 * - `periods`: how many periods after the acquisition period to report (points k = 0 … periods),
 *   default and maximum per granularity below;
 * - `dateRange` (the acquisition window) spans at most `QUERY_LIMITS.maxRangeDays` days.
 */
export const COHORT_GRANULARITIES = ['week', 'month', 'year'] as const;
export type CohortGranularity = (typeof COHORT_GRANULARITIES)[number];

export const COHORT_PERIODS: Record<CohortGranularity, { default: number; max: number }> = {
  week: { default: 12, max: 104 },
  month: { default: 12, max: 36 },
  year: { default: 3, max: 10 },
};

export const COHORT_LIMITS = { measures: 30, legacyViewFilters: 20 } as const;

const cohortMeasure = z.enum(COHORT_MEASURE_IDS, {
  error: (issue) => `Unknown cohort measure ${JSON.stringify(issue.input)}; GET /db-mgmt/api/measures?context=query_cohort lists them`,
});

const cohortFilter = filterSchemaForContext('query_cohort');

const legacyViewFilters = z.pipe(
  z.transform((value: unknown) => (Array.isArray(value) ? (value.length === 0 ? undefined : value.length === 1 ? value[0] : { and: value }) : value)),
  z.optional(cohortFilter),
);

const queryCohortMembers = z.strictObject({
  pixelId: z.string().check(z.minLength(1)),
  granularity: z.enum(COHORT_GRANULARITIES),
  measures: z.array(cohortMeasure).check(z.minLength(1), z.maxLength(COHORT_LIMITS.measures)),
  dateRange: dateRangeSchema,
  periods: z.optional(z.int().check(z.gte(0))),
  timezone: queryTimeZoneSchema,
  currency: queryCurrencySchema,
  filters: z.optional(cohortFilter),
  viewFilters: z.optional(z.unknown()),
  orderSettings: z._default(queryOrderSettingsSchema, defaultOrderSettings),
});

export const queryCohortRequestSchema = z.pipe(
  queryCohortMembers.check(
    z.superRefine((request, ctx) => {
      const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
      const { max } = COHORT_PERIODS[request.granularity];
      if (request.periods !== undefined && request.periods > max) issue(['periods'], `periods may be at most ${max} for granularity ${request.granularity}; choose a coarser granularity`);
      if (request.viewFilters !== undefined) {
        if (request.filters !== undefined) issue(['viewFilters'], 'Send filters or its legacy name viewFilters, not both');
        const parsed = legacyViewFilters.safeParse(request.viewFilters);
        if (!parsed.success) for (const problem of parsed.error.issues) issue(['viewFilters', ...(problem.path as Array<string | number>)], problem.message);
      }
      try {
        const { start, end } = resolveDateRange(request.dateRange, request.timezone);
        if (!Number.isFinite(start) || !Number.isFinite(end)) issue(['dateRange'], 'The range cannot be read in this time zone');
        else if (start >= end) issue(['dateRange', 'end'], 'end must not be before start');
        else if (end - start > QUERY_LIMITS.maxRangeDays * 86_400_000 + 3_600_000) issue(['dateRange'], `The acquisition window may span at most ${QUERY_LIMITS.maxRangeDays} days; split it into several queries`);
      } catch {
        issue(['dateRange'], 'The range cannot be read in this time zone; send plain dates (YYYY-MM-DD)');
      }
    }, whenMembersValid),
  ),
  z.transform(({ viewFilters, ...request }: z.output<typeof queryCohortMembers>) => ({
    ...request,
    measures: [...new Set(request.measures)],
    periods: request.periods ?? COHORT_PERIODS[request.granularity].default,
    filters: request.filters ?? (viewFilters === undefined ? undefined : legacyViewFilters.parse(viewFilters)),
    range: resolveDateRange(request.dateRange, request.timezone),
  })),
);

export type QueryCohortRequest = z.output<typeof queryCohortRequestSchema>;
