import * as z from 'zod/mini';
import './zod-mini';
import { ATTRIBUTION_GRANULARITIES, ATTRIBUTION_MODELS, ATTRIBUTION_WINDOWS, SPEND_JOINS, SPEND_MEASURES } from '../attribution/attribution-engine';
import { ATTRIBUTION_DIMENSION_IDS, type AttributionDimension } from '../attribution/touchpoints';
import { findMeasure } from '../catalog/measures';
import { filterSchemaForContext } from '../filters/filter-schema';
import { rangesOverlap, resolveDateRange } from '../time/date-range';
import { whenMembersValid } from './cross-field';
import { defaultOrderSettings, queryOrderSettingsSchema } from './order-settings';
import { compareDateRangeSchema, dateRangeSchema, queryCurrencySchema, queryTimeZoneSchema, rangeProblems } from './query-fields';

/**
 * POST /db-mgmt/api/query-attribution (issue P8 item 3). Strict; every default is here and in
 * README.md ("Attribution").
 */
export const ATTRIBUTION_LIMITS = { measures: 30, models: ATTRIBUTION_MODELS.length, maxRangeDays: 366 } as const;
export const DEFAULT_ATTRIBUTION_MEASURES = ['attribution.orders', 'attribution.revenue'] as const;

const measureItem = z
  .pipe(
    z.union([z.string().check(z.maxLength(100)), z.strictObject({ id: z.string().check(z.maxLength(100)) })], {
      error: 'A measure is a measure id such as "attribution.revenue", or an object { "id": "..." }',
    }),
    z.transform((item: string | { id: string }) => (typeof item === 'string' ? item : item.id)),
  )
  .check(
    z.refine((id) => findMeasure(id)?.contexts.includes('query_attribution') === true, {
      error: (issue) => `Unknown measure ${JSON.stringify(issue.input)}; GET /db-mgmt/api/measures?context=query_attribution lists the measures this query computes`,
    }),
  );

const modelSchema = z.enum(ATTRIBUTION_MODELS);

const windowSchema = z
  .number()
  .check(z.refine((days) => (ATTRIBUTION_WINDOWS as readonly number[]).includes(days), { error: `attributionWindow is a number of days, one of ${ATTRIBUTION_WINDOWS.join(', ')}` }));

const queryAttributionMembers = z.strictObject({
  pixelId: z.string().check(z.minLength(1)),
  dateRange: dateRangeSchema,
  compareDateRange: z.optional(compareDateRangeSchema),
  timezone: queryTimeZoneSchema,
  currency: queryCurrencySchema,
  granularity: z._default(z.enum(ATTRIBUTION_GRANULARITIES), 'none'),
  dimension: z._default(z.enum(ATTRIBUTION_DIMENSION_IDS as [AttributionDimension, ...AttributionDimension[]]), 'source'),
  attributionModel: z._default(z.union([modelSchema, z.array(modelSchema).check(z.minLength(1), z.maxLength(ATTRIBUTION_LIMITS.models))]), 'last_click'),
  attributionWindow: z._default(windowSchema, 30),
  measures: z._default(z.array(measureItem).check(z.minLength(1), z.maxLength(ATTRIBUTION_LIMITS.measures)), [...DEFAULT_ATTRIBUTION_MEASURES]),
  filters: z.optional(filterSchemaForContext('query_attribution')),
  orderSettings: z._default(queryOrderSettingsSchema, defaultOrderSettings),
});
type QueryAttributionMembers = z.output<typeof queryAttributionMembers>;

export const queryAttributionRequestSchema = z.pipe(
  queryAttributionMembers.check(
    z.superRefine((request, ctx) => {
      const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
      const models = Array.isArray(request.attributionModel) ? request.attributionModel : [request.attributionModel];
      if (new Set(models).size !== models.length) issue(['attributionModel'], 'A model may be listed once');
      if (!SPEND_JOINS[request.dimension]) {
        request.measures.forEach((measure, i) => {
          if ((SPEND_MEASURES as readonly string[]).includes(measure)) {
            issue(
              ['measures', i],
              `Measure '${measure}' needs ad spend, which cannot be joined to dimension '${request.dimension}'; use dimension source, channel.campaign_id, channel.adset_id or channel.ad_id`,
            );
          }
        });
      }
      let problems: Array<{ path: (string | number)[]; message: string }>;
      try {
        problems = [
          ...rangeProblems(request.dateRange, request.timezone, ATTRIBUTION_LIMITS.maxRangeDays).map((problem) => ({ ...problem, path: ['dateRange', ...problem.path] })),
          ...(request.compareDateRange
            ? rangeProblems(request.compareDateRange, request.timezone, ATTRIBUTION_LIMITS.maxRangeDays).map((problem) => ({ ...problem, path: ['compareDateRange', ...problem.path] }))
            : []),
        ];
      } catch {
        problems = [{ path: ['dateRange'], message: 'The range cannot be read in this time zone; send plain dates (YYYY-MM-DD)' }];
      }
      for (const problem of problems) issue(problem.path, problem.message);
      if (problems.length === 0 && request.compareDateRange) {
        const overlap = rangesOverlap(resolveDateRange(request.dateRange, request.timezone), resolveDateRange(request.compareDateRange, request.timezone));
        if (overlap) issue(['compareDateRange'], 'compareDateRange must not overlap dateRange');
      }
    }, whenMembersValid),
  ),
  z.transform((request: QueryAttributionMembers) => ({
    ...request,
    attributionModel: Array.isArray(request.attributionModel) ? request.attributionModel : [request.attributionModel],
    measures: [...new Set(request.measures)],
    primaryRange: resolveDateRange(request.dateRange, request.timezone),
    compareRange: request.compareDateRange ? resolveDateRange(request.compareDateRange, request.timezone) : undefined,
  })),
);

export type QueryAttributionRequest = z.output<typeof queryAttributionRequestSchema>;
