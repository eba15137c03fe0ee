import * as z from 'zod/mini';
import './zod-mini';
import { isAdMeasureId } from '../catalog/measures';
import { filterSchemaForContext, filterUsesMetrics } from '../filters/filter-schema';
import { rangesOverlap, resolveDateRange } from '../time/date-range';
import { whenMembersValid } from './cross-field';
import { compareDateRangeSchema, dateRangeSchema, queryCurrencySchema, queryTimeZoneSchema, rangeProblems } from './query-fields';

export const QUERY_ADS_LIMITS = { measures: 30, maxLimit: 500, defaultLimit: 50, maxRangeDays: 366 } as const;
export const AD_SORT_FIELDS = ['sourceUpdatedAt', 'sourceCreatedAt', 'resourceName'] as const;

/** POST /db-mgmt/api/query-ads (spec 4.2). Defaults are applied here, so the service sees a complete request. */
const queryAdsMembers = z.strictObject({
  pixelId: z.string().check(z.minLength(1)),
  measures: z.optional(
    z.array(z.string()).check(
      z.maxLength(QUERY_ADS_LIMITS.measures),
      z.superRefine((measures, ctx) => {
        const unsupported = [...new Set(measures.filter((id) => !isAdMeasureId(id)))];
        if (unsupported.length > 0) {
          ctx.addIssue({
            code: 'custom',
            message: `Unsupported measures for query-ads: ${unsupported.join(', ')}. Only ad-platform measures (channel.* and <platform>.*) are accepted; see GET /db-mgmt/api/measures`,
          });
        }
      }),
    ),
  ),
  dateRange: z.optional(dateRangeSchema),
  compareDateRange: z.optional(compareDateRangeSchema),
  // Catalog rules are checked inside the field, so filter problems are reported together
  // with every other problem of the body.
  filters: z.optional(filterSchemaForContext('query_ads')),
  timezone: queryTimeZoneSchema,
  currency: queryCurrencySchema,
  limit: z._default(z.int().check(z.gte(1), z.lte(QUERY_ADS_LIMITS.maxLimit)), QUERY_ADS_LIMITS.defaultLimit),
  offset: z._default(z.int().check(z.gte(0)), 0),
  sortBy: z._default(z.enum(AD_SORT_FIELDS), 'sourceUpdatedAt'),
  sortDirection: z._default(z.enum(['asc', 'desc']), 'desc'),
  // `columnar`: one array per measure per ad instead of one object per day (README), several
  // times fewer bytes, so that pages too large as rows can still be sent.
  format: z._default(z.enum(['rows', 'columnar']), 'rows'),
});

export const queryAdsRequestSchema = z.pipe(
  queryAdsMembers.check(
    z.superRefine((request, ctx) => {
      const measures = request.measures ?? [];
      if (measures.length > 0 && !request.dateRange) {
        ctx.addIssue({ code: 'custom', path: ['dateRange'], message: 'dateRange is required when measures are requested' });
      }
      if (request.compareDateRange && measures.length === 0) {
        ctx.addIssue({ code: 'custom', path: ['compareDateRange'], message: 'compareDateRange requires measures' });
      }
      for (const key of ['dateRange', 'compareDateRange'] as const) {
        const range = request[key];
        if (!range) continue;
        for (const problem of rangeProblems(range, request.timezone, QUERY_ADS_LIMITS.maxRangeDays)) {
          ctx.addIssue({ code: 'custom', path: [key, ...problem.path], message: problem.message });
        }
      }
      if (request.filters && !request.dateRange && filterUsesMetrics(request.filters)) {
        ctx.addIssue({ code: 'custom', path: ['dateRange'], message: 'dateRange is required when filters use metric fields' });
      }
    }, whenMembersValid),
  ),
  z.transform((request: z.output<typeof queryAdsMembers>) => {
    const measures = [...new Set(request.measures ?? [])].filter(isAdMeasureId);
    const primary = request.dateRange ? resolveDateRange(request.dateRange, request.timezone) : undefined;
    const compare = request.compareDateRange ? resolveDateRange(request.compareDateRange, request.timezone) : undefined;
    return {
      ...request,
      measures,
      primaryRange: primary,
      // A comparison period that overlaps the primary one is dropped without an error (spec 4.2).
      compareRange: primary && compare && !rangesOverlap(primary, compare) ? compare : undefined,
    };
  
  }),
);

export type QueryAdsRequest = z.output<typeof queryAdsRequestSchema>;
