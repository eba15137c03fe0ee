/**
 * Routes that answer without an API key: the API's own description. They are not rows of the
 * route table (every row there authenticates), but the stack and the local server serve them the
 * same way, one function for all of them.
 */
export interface PublicRouteDefinition {
  method: 'GET';
  path: string;
  handler: string;
  summary: string;
  /** What the route answers, for the OpenAPI document. */
  contentType: 'application/json' | 'text/html' | 'text/javascript';
}

export const DOCS_HANDLER = 'functions/docs/serve-docs.ts';

export const publicRoutes = {
  getOpenApiDocument: {
    method: 'GET',
    path: '/openapi.json',
    handler: DOCS_HANDLER,
    summary: 'This OpenAPI 3.1 document',
    contentType: 'application/json',
  },
  getApiReference: {
    method: 'GET',
    path: '/docs',
    handler: DOCS_HANDLER,
    summary: 'The API reference page, rendered from /openapi.json',
    contentType: 'text/html',
  },
  getApiReferenceScript: {
    method: 'GET',
    path: '/docs/api-reference.js',
    handler: DOCS_HANDLER,
    summary: 'The script of the API reference page (Scalar API Reference, served from this API, no CDN)',
    contentType: 'text/javascript',
  },
} as const satisfies Record<string, PublicRouteDefinition>;

export type PublicRouteId = keyof typeof publicRoutes;

/**
 * Shaped like route table rows (no scope, no writes, reaching nothing), so the local server's
 * matcher serves both alike.
 */
export const publicRouteTable = Object.entries(publicRoutes).map(([id, route]) => ({
  id: id as PublicRouteId,
  ...route,
  scope: null,
  writes: false,
  capabilities: { reads: [], writes: [], publishes: false },
}));
