import type { Scope } from '../shared/auth/scopes';

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
  summary: string;
}

export const routes = {
  getOrderSettings: {
    method: 'GET',
    path: '/accounts/api/account/settings/order',
    handler: 'functions/accounts/get-order-settings.ts',
    scope: 'account:read',
    summary: 'Read the order settings',
  },
  putOrderSettings: {
    method: 'PUT',
    path: '/accounts/api/account/settings/order',
    handler: 'functions/accounts/put-order-settings.ts',
    scope: 'account:write',
    summary: 'Replace the order settings',
  },
  getMeasures: {
    method: 'GET',
    path: '/db-mgmt/api/measures',
    handler: 'functions/db-mgmt/get-measures.ts',
    scope: null,
    summary: 'List the measures catalog',
  },
  getFilters: {
    method: 'GET',
    path: '/db-mgmt/api/filters',
    handler: 'functions/db-mgmt/get-filters.ts',
    scope: 'analytics:read',
    summary: 'List the filter-field catalog',
  },
  queryAds: {
    method: 'POST',
    path: '/db-mgmt/api/query-ads',
    handler: 'functions/db-mgmt/query-ads.ts',
    scope: 'analytics:read',
    summary: 'List ads, with optional daily series',
  },
} as const satisfies Record<string, RouteDefinition>;

export type RouteId = keyof typeof routes;

export const routeTable: ReadonlyArray<RouteDefinition & { id: RouteId }> = Object.entries(routes).map(
  ([id, route]) => ({ id: id as RouteId, ...route }),
);
