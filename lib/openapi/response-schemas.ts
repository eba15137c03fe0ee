import * as z from 'zod';
import * as zm from 'zod/mini';
import { DIMENSION_FAMILIES } from '../../shared/catalog/dimensions';
import { FILTER_CONTEXTS, FILTER_OPERATORS } from '../../shared/catalog/filter-fields';
import { AD_PLATFORMS, MEASURE_CONTEXTS, MEASURE_FORMATS } from '../../shared/catalog/measures';
import { configurationInputSchema, dashboardViewMembersSchema } from '../../shared/schemas/dashboard-view';
import { withMeta } from '../../shared/schemas/zod-mini';
import { EVENT_PROBLEM_CODES, EVENTS_ERROR_CODES } from '../../shared/tracking/ingest-errors';

/*
 * Response bodies, for the OpenAPI document only: the services build these shapes in code, and the
 * end-to-end suite checks every response it receives against what is written here, so a drift
 * between the two fails a test rather than misleading a client.
 */

/** The error body of every route but the events API (ARCHITECTURE "error model"). */
export const errorBodySchema = z
  .object({
    message: z.string(),
    errors: z
      .array(
        z.object({
          message: z.string(),
          key: z.string().meta({ description: 'The last segment of `path`; `""` for the body itself' }),
          path: z.array(z.string()).meta({ description: 'From the body root (`query` / `path` / `headers` first for those parts); array indexes as strings' }),
        }),
      )
      .optional()
      .meta({ description: 'On a 400: every problem found, each located' }),
  })
  .meta({ id: 'Error' });

/** The events API's own envelope, for every status (README "POST /tr/api/events"). */
export const eventsErrorBodySchema = z
  .object({
    message: z.string(),
    requestId: z.string(),
    error: z.object({
      code: z.enum(Object.keys(EVENTS_ERROR_CODES) as [keyof typeof EVENTS_ERROR_CODES]),
      details: z.array(
        z.object({
          index: z.int().nullable().meta({ description: "The event's position in `events`; `null` for the body as a whole" }),
          path: z.array(z.string()),
          code: z.enum(EVENT_PROBLEM_CODES),
          message: z.string(),
        }),
      ),
    }),
  })
  .meta({ id: 'EventsError' });

const measureEntry = z.object({
  id: z.string(),
  namespace: z.string(),
  title: z.string(),
  shortTitle: z.string(),
  description: z.string(),
  format: z.enum(MEASURE_FORMATS),
  isAverage: z.boolean(),
  isPercentage: z.boolean(),
  preferredTrendDirection: z.enum(['up', 'down']),
  contexts: z.array(z.enum(MEASURE_CONTEXTS)),
});
const dimensionEntry = z.object({
  id: z.string(),
  family: z.enum(DIMENSION_FAMILIES),
  title: z.string(),
  description: z.string(),
  values: z.array(z.string()).optional(),
  expectedValues: z.number().int().meta({ description: "The values a pixel typically has: what a query's price counts for a split by this dimension (see the README's request prices)" }),
});
export const measuresResponseSchema = z.object({ measures: z.array(measureEntry), dimensions: z.array(dimensionEntry) });

export const filtersResponseSchema = z.object({
  fields: z.array(
    z.object({
      field: z.string(),
      label: z.string(),
      valueType: z.enum(['string', 'number']),
      supportedOperators: z.array(z.enum(FILTER_OPERATORS)),
      applicableContexts: z.array(z.enum(FILTER_CONTEXTS)),
      description: z.string(),
      kind: z.enum(['attribute', 'metric']),
      values: z.array(z.string()).optional(),
    }),
  ),
});

const range = z.object({ start: z.string(), end: z.string() });
/** One time bucket: its bounds, then one member per measure (and per dimension, when split). */
const seriesPoint = z
  .object({ dt: z.string(), start: z.string(), end: z.string() })
  .catchall(z.union([z.string(), z.number(), z.null()]))
  .meta({ id: 'SeriesPoint' });

/** What `measureDetails` says of one measure over the whole range (query, cohorts). */
const measureDetail = z
  .object({
    measure: z.string(),
    success: z.boolean(),
    reason: z.string().optional(),
    isAverage: z.boolean(),
    isPercentage: z.boolean(),
    calculatedAverage: z.boolean(),
    primarySum: z.number().nullable(),
    compareSum: z.number().nullable(),
    primaryAvg: z.number().nullable(),
    compareAvg: z.number().nullable(),
    percentDiff: z.number().nullable(),
    hasPacing: z.boolean(),
    preferredTrendDirection: z.enum(['up', 'down']),
  })
  .meta({ id: 'MeasureDetail' });

export const queryResponseSchema = z.object({
  results: z.array(
    z.object({
      granularity: z.string(),
      dimensions: z.array(z.string()),
      dateRange: range,
      compareDateRange: range.nullable(),
      timezone: z.string(),
      currency: z.string(),
      measureDetails: z.array(measureDetail),
      data: z.object({ primary: z.array(seriesPoint), compare: z.array(seriesPoint) }),
    }),
  ),
});

export const queryAttributionResponseSchema = z.object({
  results: z.array(
    z.object({
      attributionModel: z.string(),
      attributionWindow: z.number().int(),
      dimension: z.string(),
      granularity: z.string(),
      dateRange: range,
      compareDateRange: range.nullable(),
      timezone: z.string(),
      currency: z.string(),
      measureDetails: z.array(measureDetail),
      data: z.object({ primary: z.array(seriesPoint), compare: z.array(seriesPoint) }),
    }),
  ),
});

/** One cohort in one period: the cohort's acquisition bucket, the period's bounds and whether it has ended. */
const cohortPoint = z
  .object({ dt: z.string(), start: z.string(), end: z.string(), period: z.number().int(), periodStart: z.string(), periodEnd: z.string(), complete: z.boolean() })
  .catchall(z.union([z.number(), z.null()]))
  .meta({ id: 'CohortPoint' });

export const queryCohortResponseSchema = z.object({
  results: z.array(
    z.object({
      granularity: z.enum(['week', 'month', 'year']),
      dimensions: z.array(z.string()),
      dateRange: range,
      compareDateRange: z.null(),
      timezone: z.string(),
      currency: z.string(),
      periods: z.number().int(),
      measureDetails: z.array(measureDetail),
      data: z.object({ primary: z.array(cohortPoint), compare: z.array(cohortPoint) }),
    }),
  ),
});

const money = z.number().nullable();
export const queryAdsResponseSchema = z.object({
  rows: z.array(
    z.object({
      basicDetails: z.object({
        platform: z.enum(AD_PLATFORMS),
        resourceSource: z.string(),
        accountId: z.string(),
        accountName: z.string(),
        campaignId: z.string(),
        campaignName: z.string(),
        adsetId: z.string(),
        adsetName: z.string(),
        adId: z.string(),
        adName: z.string(),
        resourceName: z.string(),
        status: z.string(),
        configuredStatus: z.string(),
        effectiveStatus: z.string(),
        currency: z.string(),
        nativeCurrency: z.string(),
        dailyBudget: money,
        budgetRemaining: money,
        amountSpent: money,
        sourceCreatedAt: z.string(),
        sourceUpdatedAt: z.string(),
      }),
      data: z.object({ primary: z.array(seriesPoint), compare: z.array(seriesPoint).optional() }).optional(),
    }),
  ),
  pagination: z.object({ limit: z.int(), offset: z.int(), total: z.int(), hasMore: z.boolean() }),
});

// The view schemas are written with zod/mini (shared/schemas/zod-mini.ts), so they are combined with its functions.
const dashboardView = withMeta(zm.extend(dashboardViewMembersSchema, { configuration: configurationInputSchema }), { id: 'DashboardView' });
export const dashboardViewResponseSchema = z.object({ dashboardView });
export const dashboardViewListResponseSchema = z.object({
  dashboardViews: z.array(zm.pick(dashboardViewMembersSchema, { dashboardViewId: true, type: true, name: true, order: true, createdAt: true, updatedAt: true })),
});
export const dashboardViewDeletedResponseSchema = z.object({ deleted: z.literal(true), dashboardViewId: z.string() });

export const ingestEventsResponseSchema = z.union([
  z.object({ success: z.literal(true), eventsIngested: z.int().meta({ description: 'The batch form: how many events were accepted' }) }),
  z.object({ success: z.literal(true), eventId: z.string().meta({ description: 'The single-event form: the id the event is stored under' }) }),
]);
