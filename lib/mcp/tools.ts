import { openApiDocument } from '../openapi/build-document';
import { routes, type RouteId } from '../routes';

/** The routes that only read: the only ones an agent is offered. */
type ReadRouteId = { [K in RouteId]: (typeof routes)[K]['writes'] extends false ? K : never }[RouteId];

/**
 * The tools of `npm run mcp`, one line each: tool name → route. Everything else (description,
 * input schema, how arguments become the path, the query string and the body) is derived from
 * the route's OpenAPI operation, so from the route table and the zod schemas. Only read routes
 * fit the type, so no tool can change anything.
 */
export const MCP_TOOLS = {
  list_measures: 'getMeasures',
  list_filter_fields: 'getFilters',
  query: 'query',
  query_ads: 'queryAds',
  query_attribution: 'queryAttribution',
  query_cohort_analysis: 'queryCohortAnalysis',
  list_dashboard_views: 'listDashboardViews',
  get_dashboard_view: 'getDashboardView',
  get_account: 'getAccount',
  get_order_settings: 'getOrderSettings',
  get_cost_settings: 'getCostSettings',
  describe_api_key: 'getApiKeyMe',
} as const satisfies Record<string, ReadRouteId>;

type Json = Record<string, any>;

export interface ToolDefinition {
  name: string;
  routeId: RouteId;
  description: string;
  /** A JSON Schema (draft 2020-12) of the arguments: query and path parameters and body members, side by side. */
  inputSchema: Json & { type: 'object' };
  /** Where each argument goes. */
  placement: Record<string, 'path' | 'query' | 'body'>;
  /** The body takes `pixelId`, which the server fills in from its configuration. */
  bodyTakesPixelId: boolean;
}

/** Component references rewritten to the tool schema's own `$defs`, with every component they reach. */
function withLocalDefinitions(schemas: Json[], components: Record<string, Json>): { rewritten: Json[]; defs: Record<string, Json> } {
  const defs: Record<string, Json> = {};
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => {
        const match = key === '$ref' && typeof child === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(child) : null;
        if (!match) return [key, rewrite(child)];
        const name = match[1]!;
        if (!(name in defs)) {
          defs[name] = {};
          defs[name] = rewrite(components[name]) as Json;
        }
        return [key, `#/$defs/${name}`];
      }),
    );
  };
  return { rewritten: schemas.map((schema) => rewrite(schema) as Json), defs };
}

export function toolDefinitions(): ToolDefinition[] {
  const document = openApiDocument() as Json;
  return Object.entries(MCP_TOOLS).map(([name, routeId]) => {
    const route = routes[routeId];
    const operation = document.paths[route.path][route.method.toLowerCase()];
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    const placement: ToolDefinition['placement'] = {};
    const add = (key: string, schema: Json, where: 'path' | 'query' | 'body', isRequired: boolean) => {
      if (key in placement) throw new Error(`Tool ${name}: '${key}' is both a ${placement[key]} and a ${where} member`);
      properties[key] = schema;
      placement[key] = where;
      if (isRequired) required.push(key);
    };
    for (const parameter of operation.parameters as Json[]) {
      if (parameter.in !== 'path' && parameter.in !== 'query') continue;
      add(parameter.name, { ...parameter.schema, ...(parameter.description ? { description: parameter.description } : {}) }, parameter.in, parameter.required);
    }
    const body = operation.requestBody?.content['application/json'].schema as Json | undefined;
    let bodyTakesPixelId = false;
    if (body) {
      const resolved = body.$ref ? document.components.schemas[body.$ref.split('/').pop()] : body;
      for (const [key, schema] of Object.entries((resolved.properties ?? {}) as Record<string, Json>)) {
        if (key === 'pixelId') {
          bodyTakesPixelId = true;
          continue;
        }
        add(key, schema, 'body', ((resolved.required ?? []) as string[]).includes(key));
      }
    }
    const { rewritten, defs } = withLocalDefinitions([{ properties }], document.components.schemas);
    return {
      name,
      routeId,
      description: `${operation.summary}. ${route.method} ${route.path}${operation.description ? `\n\n${operation.description}` : ''}`,
      inputSchema: {
        type: 'object',
        properties: rewritten[0]!.properties,
        ...(required.length ? { required } : {}),
        additionalProperties: false,
        ...(Object.keys(defs).length ? { $defs: defs } : {}),
      },
      placement,
      bodyTakesPixelId,
    };
  });
}
