import * as z from 'zod';
import { accountPatchSchema, accountSchema } from '../../shared/schemas/account';
import { apiKeyDescriptionSchema } from '../../shared/schemas/api-key';
import { filtersQuerySchema, measuresQuerySchema } from '../../shared/schemas/catalog-queries';
import {
  copyDashboardViewSchema,
  createDashboardViewSchema,
  dashboardViewFromPresetSchema,
  dashboardViewPathSchema,
  listDashboardViewsQuerySchema,
  updateDashboardViewSchema,
} from '../../shared/schemas/dashboard-view';
import { costSettingsInputSchema } from '../../shared/schemas/cost-settings';
import { orderSettingsInputSchema, orderSettingsSchema } from '../../shared/schemas/order-settings';
import { queryAttributionRequestSchema } from '../../shared/schemas/query-attribution';
import { queryCohortRequestSchema } from '../../shared/schemas/query-cohort';
import { queryAdsRequestSchema } from '../../shared/schemas/query-ads';
import { queryRequestSchema } from '../../shared/schemas/query-measures';
import { batchBodySchema, EVENT_LIMITS, singleBodySchema } from '../../shared/tracking/event-schema';
import type { RouteId } from '../routes';
import {
  dashboardViewDeletedResponseSchema,
  dashboardViewListResponseSchema,
  dashboardViewResponseSchema,
  eventsErrorBodySchema,
  filtersResponseSchema,
  ingestEventsResponseSchema,
  measuresResponseSchema,
  queryAdsResponseSchema,
  queryAttributionResponseSchema,
  queryCohortResponseSchema,
  queryResponseSchema,
} from './response-schemas';

/**
 * What the OpenAPI document says of a route beyond its row in lib/routes.ts (method, path, scope,
 * summary, writes). Kept apart from the route table so that handlers, which import the table, do
 * not bundle every schema. Typed by the table: a route without an entry here fails the typecheck.
 *
 * The error statuses are derived from the row (see build-document.ts); list here only the ones a
 * route adds on its own. The longer description of each route is in route-descriptions.ts.
 */
export interface RouteDocument {
  /** The group the route is listed under in the reference. */
  tag: string;
  /** The same schemas the handler validates with. */
  request?: { body?: z.core.$ZodType; query?: z.core.$ZodType; path?: z.core.$ZodType };
  /** The success body (status 200 unless `status` says otherwise). */
  response: z.core.$ZodType;
  status?: number;
  /** Statuses a route answers besides the derived ones, e.g. a 404 of a route without path parameters. */
  extraStatuses?: number[];
  /** Replaces the standard error body, for the events API. */
  errorBody?: z.core.$ZodType;
  /** An absent body reads as `{}`. */
  bodyOptional?: boolean;
  /** The handler's own raw-body limit (413 above it). */
  maxBodyBytes?: number;
}

const view = { path: dashboardViewPathSchema };

export const routeDocuments: Record<RouteId, RouteDocument> = {
  getAccount: { tag: 'Account settings', response: z.object({ account: accountSchema }) },
  updateAccount: { tag: 'Account settings', request: { body: accountPatchSchema }, response: z.object({ account: accountSchema }) },
  getOrderSettings: { tag: 'Account settings', response: z.object({ orderSettings: orderSettingsSchema }) },
  putOrderSettings: { tag: 'Account settings', request: { body: orderSettingsInputSchema }, response: z.object({ orderSettings: orderSettingsSchema }) },
  listDashboardViews: { tag: 'Dashboard views', request: { query: listDashboardViewsQuerySchema }, response: dashboardViewListResponseSchema },
  getDashboardView: { tag: 'Dashboard views', request: view, response: dashboardViewResponseSchema },
  createDashboardView: { tag: 'Dashboard views', request: { body: createDashboardViewSchema }, response: dashboardViewResponseSchema },
  updateDashboardView: { tag: 'Dashboard views', request: { ...view, body: updateDashboardViewSchema }, response: dashboardViewResponseSchema },
  copyDashboardView: { tag: 'Dashboard views', request: { ...view, body: copyDashboardViewSchema }, bodyOptional: true, response: dashboardViewResponseSchema },
  createDashboardViewFromPreset: { tag: 'Dashboard views', request: { body: dashboardViewFromPresetSchema }, response: dashboardViewResponseSchema },
  deleteDashboardView: { tag: 'Dashboard views', request: view, response: dashboardViewDeletedResponseSchema },
  getCostSettings: { tag: 'Account settings', response: z.object({ costSettings: costSettingsInputSchema }) },
  putCostSettings: { tag: 'Account settings', request: { body: costSettingsInputSchema }, response: z.object({ costSettings: costSettingsInputSchema }) },
  getApiKeyMe: { tag: 'API keys', response: z.object({ apiKey: apiKeyDescriptionSchema }) },
  getMeasures: { tag: 'Catalogs', request: { query: measuresQuerySchema }, response: measuresResponseSchema },
  getFilters: { tag: 'Catalogs', request: { query: filtersQuerySchema }, response: filtersResponseSchema },
  query: { tag: 'Analytics', request: { body: queryRequestSchema }, response: queryResponseSchema },
  queryAttribution: { tag: 'Analytics', request: { body: queryAttributionRequestSchema }, response: queryAttributionResponseSchema },
  queryCohortAnalysis: { tag: 'Analytics', request: { body: queryCohortRequestSchema }, response: queryCohortResponseSchema },
  queryAds: { tag: 'Analytics', request: { body: queryAdsRequestSchema }, response: queryAdsResponseSchema },
  ingestEvents: {
    tag: 'Events',
    request: { body: z.union([batchBodySchema, singleBodySchema]) },
    response: ingestEventsResponseSchema,
    errorBody: eventsErrorBodySchema,
    maxBodyBytes: EVENT_LIMITS.bodyBytes,
  },
};
