import type { Scope } from '../shared/auth/scopes';
import type { ItemKind } from '../shared/store/table-design';
import type { FunctionHeap } from './function-defaults';

/**
 * The map of the API. The CDK stack builds one function and one route per row; the local server
 * serves the same rows; handlers take their scope from here. Adding an endpoint is one row plus
 * one handler file.
 */
export interface RouteDefinition {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API Gateway route syntax: `{name}` is a path parameter. */
  path: string;
  /** The handler module, relative to the project root; it exports `handler`. */
  handler: string;
  /** The scope a key needs; `null` means any active key of the pixel may call it. */
  scope: Scope | null;
  /**
   * The route changes state. A write route honours the `Idempotency-Key` header (a retry with the
   * same key answers the first response and changes nothing), so every new write route must say so.
   */
  writes: boolean;
  summary: string;
  /** What the function may reach; the stack grants exactly this (README, "Deploying with CDK"). */
  capabilities: RouteCapabilities;
  /** V8 heap sizes for the route's function, where measured to matter (lib/function-defaults.ts). */
  heap?: FunctionHeap;
}

/**
 * The item families (shared/store/table-design.ts ITEM_KINDS) a route's function reads, and those
 * it writes (a write grant includes reading them), and whether it publishes to the event bus.
 * Implicit, so not listed: every route counts requests on its API key item (authentication), and
 * a write route keeps its idempotency items. test/fuzz/route-table-access.test.ts records the keys
 * each handler touches and fails on any the row does not declare.
 */
export interface RouteCapabilities {
  reads: readonly ItemKind[];
  writes: readonly ItemKind[];
  publishes: boolean;
  /**
   * Whether the function reads the analytics store (its Parquet files, through DuckDB): the stack
   * then grants it the bucket, names it in ANALYTICS_BUCKET and ships the engine with it.
   */
  analytics?: 'read';
}

const reads = (...kinds: ItemKind[]): RouteCapabilities => ({ reads: kinds, writes: [], publishes: false });
const writes = (...kinds: ItemKind[]): RouteCapabilities => ({ reads: [], writes: kinds, publishes: false });
/** The query endpoint: settings and the analytics store's live files (events, orders, ads, rates, SKU costs). */
const ANALYTICS_READS: ItemKind[] = ['pixelHead', 'analyticsPartitions'];

export const routes = {
  getAccount: {
    method: 'GET',
    path: '/accounts/api/account',
    handler: 'functions/accounts/get-account.ts',
    scope: 'account:read',
    writes: false,
    summary: 'Read the account: name, reporting time zone, currency',
    capabilities: reads('pixelHead'),
  },
  updateAccount: {
    method: 'PATCH',
    path: '/accounts/api/account',
    handler: 'functions/accounts/update-account.ts',
    scope: 'account:write',
    writes: true,
    summary: 'Change the account name, reporting time zone or currency',
    capabilities: writes('pixelHead'),
  },
  getOrderSettings: {
    method: 'GET',
    path: '/accounts/api/account/settings/order',
    handler: 'functions/accounts/get-order-settings.ts',
    scope: 'account:read',
    writes: false,
    summary: 'Read the order settings',
    capabilities: reads('pixelHead'),
  },
  putOrderSettings: {
    method: 'PUT',
    path: '/accounts/api/account/settings/order',
    handler: 'functions/accounts/put-order-settings.ts',
    scope: 'account:write',
    writes: true,
    summary: 'Replace the order settings',
    capabilities: writes('pixelHead'),
  },
  getCostSettings: {
    method: 'GET',
    path: '/accounts/api/costs/settings',
    handler: 'functions/accounts/get-cost-settings.ts',
    scope: 'costs:read',
    writes: false,
    summary: 'Read the cost settings (default COGS percent, handling, shipping and gateway fees)',
    capabilities: reads('pixelHead'),
  },
  putCostSettings: {
    method: 'PUT',
    path: '/accounts/api/costs/settings',
    handler: 'functions/accounts/put-cost-settings.ts',
    scope: 'costs:write',
    writes: true,
    summary: 'Replace the cost settings',
    capabilities: writes('pixelHead'),
  },
  listDashboardViews: {
    method: 'GET',
    path: '/accounts/api/dashboard/views',
    handler: 'functions/accounts/list-dashboard-views.ts',
    scope: 'dashboards:read',
    writes: false,
    summary: 'List the dashboard views (summaries)',
    capabilities: reads('dashboardViews'),
  },
  getDashboardView: {
    method: 'GET',
    path: '/accounts/api/dashboard/views/{dashboardViewId}',
    handler: 'functions/accounts/get-dashboard-view.ts',
    scope: 'dashboards:read',
    writes: false,
    summary: 'Read one dashboard view',
    capabilities: reads('dashboardViews'),
  },
  createDashboardView: {
    method: 'POST',
    path: '/accounts/api/dashboard/views',
    handler: 'functions/accounts/create-dashboard-view.ts',
    scope: 'dashboards:write',
    writes: true,
    summary: 'Create a dashboard view from a complete configuration',
    capabilities: writes('dashboardViews'),
  },
  updateDashboardView: {
    method: 'PATCH',
    path: '/accounts/api/dashboard/views/{dashboardViewId}',
    handler: 'functions/accounts/update-dashboard-view.ts',
    scope: 'dashboards:write',
    writes: true,
    summary: 'Update the name, configuration or order of a dashboard view',
    capabilities: writes('dashboardViews'),
  },
  copyDashboardView: {
    method: 'POST',
    path: '/accounts/api/dashboard/views/{dashboardViewId}/copy',
    handler: 'functions/accounts/copy-dashboard-view.ts',
    scope: 'dashboards:write',
    writes: true,
    summary: 'Copy a dashboard view',
    capabilities: writes('dashboardViews'),
  },
  createDashboardViewFromPreset: {
    method: 'POST',
    path: '/accounts/api/dashboard/views/from-preset',
    handler: 'functions/accounts/create-dashboard-view-from-preset.ts',
    scope: 'dashboards:write',
    writes: true,
    summary: 'Create a dashboard view of sparkline tiles from a list of measures',
    capabilities: writes('dashboardViews'),
  },
  deleteDashboardView: {
    method: 'DELETE',
    path: '/accounts/api/dashboard/views/{dashboardViewId}',
    handler: 'functions/accounts/delete-dashboard-view.ts',
    scope: 'dashboards:write',
    writes: true,
    summary: 'Delete a dashboard view',
    capabilities: writes('dashboardViews'),
  },
  getApiKeyMe: {
    method: 'GET',
    path: '/accounts/api/api-keys/me',
    handler: 'functions/accounts/get-api-key-me.ts',
    scope: null,
    writes: false,
    summary: 'Describe the calling API key: its pixel, name, scopes and lifetime',
    capabilities: reads(),
  },
  getMeasures: {
    method: 'GET',
    path: '/db-mgmt/api/measures',
    handler: 'functions/db-mgmt/get-measures.ts',
    scope: null,
    writes: false,
    summary: 'List the measures catalog',
    capabilities: reads(),
  },
  getFilters: {
    method: 'GET',
    path: '/db-mgmt/api/filters',
    handler: 'functions/db-mgmt/get-filters.ts',
    scope: 'analytics:read',
    writes: false,
    summary: 'List the filter-field catalog',
    capabilities: reads(),
  },
  query: {
    method: 'POST',
    path: '/db-mgmt/api/query',
    handler: 'functions/db-mgmt/query.ts',
    scope: 'analytics:read',
    summary: 'Query measures over orders, events and ad spend, by time bucket and dimension',
    writes: false,
    capabilities: { ...reads(...ANALYTICS_READS), analytics: 'read' },
  },
  queryCohortAnalysis: {
    method: 'POST',
    path: '/db-mgmt/api/query-cohort-analysis',
    handler: 'functions/db-mgmt/query-cohort-analysis.ts',
    scope: 'analytics:read',
    writes: false,
    summary: 'Cohorts of new customers by acquisition period: size, lifetime value, retention and contribution margin per period',
    // Orders and their customers' histories, costed: exchange rates and SKU costs from the analytics store.
    capabilities: { ...reads('pixelHead', 'analyticsPartitions'), analytics: 'read' },
  },
  queryAds: {
    method: 'POST',
    path: '/db-mgmt/api/query-ads',
    handler: 'functions/db-mgmt/query-ads.ts',
    scope: 'analytics:read',
    writes: false,
    summary: 'List ads, with optional daily series',
    // Ads, their hours and exchange rates, all from the analytics store.
    capabilities: { ...reads('analyticsPartitions'), analytics: 'read' },
    // A 500-ad page allocates some 100 MB of short-lived objects with 15 MB live: small
    // semi-spaces keep its peak RSS within a quarter of the function's memory (README, "Benchmarks").
    heap: { semiSpaceMiB: 8 },
  },
  queryAttribution: {
    method: 'POST',
    path: '/db-mgmt/api/query-attribution',
    handler: 'functions/db-mgmt/query-attribution.ts',
    scope: 'analytics:read',
    writes: false,
    summary: 'Credit orders to the marketing touchpoints of their buyers, by attribution model, with ad spend',
    // Orders, their journeys, and ads, ad hours and exchange rates from the analytics store; no
    // settings, costs or event read model (touchpoints live in the journeys).
    capabilities: { ...reads('journeys', 'analyticsPartitions'), analytics: 'read' },
  },
  ingestEvents: {
    method: 'POST',
    path: '/tr/api/events',
    handler: 'functions/tr/ingest-events.ts',
    scope: 'events:write',
    writes: true,
    summary: 'Ingest server-side tracking events, one or a batch of up to 100',
    capabilities: writes('ingestionLog'),
  },
} as const satisfies Record<string, RouteDefinition>;

export type RouteId = keyof typeof routes;

export const routeTable: ReadonlyArray<RouteDefinition & { id: RouteId }> = Object.entries(routes).map(
  ([id, route]) => ({ id: id as RouteId, ...route }),
);
