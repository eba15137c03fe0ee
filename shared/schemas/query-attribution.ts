import * as z from 'zod';
import { ATTRIBUTION_GRANULARITIES, ATTRIBUTION_MODELS, ATTRIBUTION_WINDOWS, SPEND_JOINS, SPEND_MEASURES } from '../attribution/attribution-engine';
import { ATTRIBUTION_DIMENSION_IDS, type AttributionDimension } from '../attribution/touchpoints';
import { findMeasure } from '../catalog/measures';
import { filterSchemaForContext } from '../filters/filter-schema';
import { rangesOverlap, resolveDateRange } from '../time/date-range';
import { queryOrderSettingsSchema } from './order-settings';
import { compareDateRangeSchema, dateRangeSchema, queryCurrencySchema, queryTimeZoneSchema, rangeProblems } from './query-fields';

/**
 * POST /db-mgmt/api/query-attribution (issue P8 item 3). Strict; every default is here and in
 * README.md ("Attribution").
 */
export const ATTRIBUTION_LIMITS = { measures: 30, models: ATTRIBUTION_MODELS.length, maxRangeDays: 366 } as const;
export const DEFAULT_ATTRIBUTION_MEASURES = ['attribution.orders', 'attribution.revenue'] as const;

const measureItem = z
  .union([z.string().max(100), z.strictObject({ id: z.string().max(100) })], {
    error: 'A measure is a measure id such as "attribution.revenue", or an object { "id": "..." }',
  })
  .transform((item) => (typeof item === 'string' ? item : item.id))
  .refine((id) => findMeasure(id)?.contexts.includes('query_attribution') === true, {
    error: (issue) => `Unknown measure ${JSON.stringify(issue.input)}; GET /db-mgmt/api/measures?context=query_attribution lists the measures this query computes`,
  });

const modelSchema = z.enum(ATTRIBUTION_MODELS);

const windowSchema = z
  .number()
  .refine((days) => (ATTRIBUTION_WINDOWS as readonly number[]).includes(days), { error: `attributionWindow is a number of days, one of ${ATTRIBUTION_WINDOWS.join(', ')}` });

export const queryAttributionRequestSchema = z
  .strictObject({
    pixelId: z.string().min(1),
    dateRange: dateRangeSchema,
    compareDateRange: compareDateRangeSchema.optional(),
    timezone: queryTimeZoneSchema,
    currency: queryCurrencySchema,
    granularity: z.enum(ATTRIBUTION_GRANULARITIES).default('none'),
    dimension: z.enum(ATTRIBUTION_DIMENSION_IDS as [AttributionDimension, ...AttributionDimension[]]).default('source'),
    attributionModel: z.union([modelSchema, z.array(modelSchema).min(1).max(ATTRIBUTION_LIMITS.models)]).default('last_click'),
    attributionWindow: windowSchema.default(30),
    measures: z.array(measureItem).min(1).max(ATTRIBUTION_LIMITS.measures).default([...DEFAULT_ATTRIBUTION_MEASURES]),
    filters: filterSchemaForContext('query_attribution').optional(),
    orderSettings: queryOrderSettingsSchema.default({ countPendingOrders: false, countVoidedOrders: false, refundDateAttribution: 'refund_date', exclusionFilters: [] }),
  })
  // Rules between members run once every member is valid (as in query-measures.ts).
  .transform((request) => request)
  .superRefine((request, ctx) => {
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
  })
  .transform((request) => ({
    ...request,
    attributionModel: Array.isArray(request.attributionModel) ? request.attributionModel : [request.attributionModel],
    measures: [...new Set(request.measures)],
    primaryRange: resolveDateRange(request.dateRange, request.timezone),
    compareRange: request.compareDateRange ? resolveDateRange(request.compareDateRange, request.timezone) : undefined,
  }));

export type QueryAttributionRequest = z.output<typeof queryAttributionRequestSchema>;
