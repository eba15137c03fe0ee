import * as z from 'zod';
import { FILTER_LIMITS, filterConditionSchema } from '../../shared/filters/filter-schema';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_PATTERN } from '../../shared/http/idempotency';
import { publicRouteTable } from '../public-routes';
import { routeTable, type RouteDefinition, type RouteId } from '../routes';
import { routeDescriptions } from './route-descriptions';
import { routeDocuments, type RouteDocument } from './route-documents';
import { errorBodySchema } from './response-schemas';

type Json = Record<string, unknown>;

export const OPENAPI_VERSION = '3.1.1';
export const API_VERSION = '1.0';

/**
 * Why each status is answered; which statuses a route answers follows from its row (see
 * `statusesOf`). The order is the order of the checks (ARCHITECTURE "Auth").
 */
const STATUS_TEXT: Record<number, string> = {
  400: 'The request is invalid: an unknown query parameter, a body that is not a JSON object, or a value the schema refuses. `errors` lists every problem, each located by `path`',
  401: 'A header is missing or malformed, or the key is unknown, revoked, expired or not bound to `x-pixel-id`',
  403: "The key lacks the route's scope, or a body `pixelId` differs from `x-pixel-id`",
  404: 'No such resource for this pixel (another pixel\u2019s resource is also a 404)',
  409: 'A request with this `Idempotency-Key` is still in progress; retry after `Retry-After` seconds to get its response',
  413: 'The body is larger than the route accepts',
  422: 'This `Idempotency-Key` was already used for a different request',
  429: "The key's quota for the current window is used up (`RateLimit-Policy` states it); retry after `Retry-After` seconds. Deployed, the stage-wide throttle answers it too",
  500: 'An unexpected failure; nothing internal is disclosed',
  503: 'A transient failure of the store; retry after `Retry-After` seconds (write routes: with the same `Idempotency-Key`)',
};

/** The statuses a route can answer besides success, derived from its row and its document. */
export function statusesOf(route: Pick<RouteDefinition, 'path' | 'scope' | 'writes'>, document: RouteDocument): number[] {
  const statuses = new Set([400, 401, 429, 500, 503]);
  // The body pixelId check answers 403 on any route with a body, whatever its scope.
  if (route.scope !== null || document.request?.body) statuses.add(403);
  if (route.path.includes('{')) statuses.add(404);
  // API Gateway's payload limit applies to every body; some routes have a lower one of their own.
  if (document.request?.body || document.maxBodyBytes !== undefined) statuses.add(413);
  if (route.writes) for (const status of [409, 422]) statuses.add(status);
  for (const status of document.extraStatuses ?? []) statuses.add(status);
  return [...statuses].sort((a, b) => a - b);
}

/**
 * Turns zod schemas into the document's JSON Schemas (zod 4's own `z.toJSONSchema`, draft
 * 2020-12, the dialect of OpenAPI 3.1). Definitions that zod extracts (schemas given an `id` with
 * `.meta`, and recursive ones) are hoisted into `components.schemas`, since a `#/$defs` reference
 * would otherwise point at the root of the OpenAPI document.
 */
class SchemaEmitter {
  readonly components: Record<string, Json> = {};

  convert(schema: z.core.$ZodType, io: 'input' | 'output', context: string): Json {
    const { $schema: _dialect, $defs, ...root } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
    const names = new Map<string, string>();
    for (const name of Object.keys(($defs as Json | undefined) ?? {})) {
      // Ids given with .meta are names of their own; zod's generated names are unique only within one call.
      names.set(name, name.startsWith('__') ? `${context}${name.replace(/^_+/, '_')}` : name);
    }
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (value === null || typeof value !== 'object') return value;
      return Object.fromEntries(
        Object.entries(value).map(([key, child]) => {
          if (key === '$ref' && typeof child === 'string') {
            if (child === '#') throw new Error(`${context}: a schema that refers to itself at its root needs an id (.meta({ id }))`);
            const match = /^#\/\$defs\/(.+)$/.exec(child);
            if (match) return [key, `#/components/schemas/${names.get(match[1]!) ?? match[1]}`];
          }
          return [key, rewrite(child)];
        }),
      );
    };
    for (const [name, definition] of Object.entries(($defs as Json | undefined) ?? {})) {
      const hoisted = rewrite(definition) as Json;
      const componentName = names.get(name)!;
      const existing = this.components[componentName];
      if (existing && JSON.stringify(existing) !== JSON.stringify(hoisted)) {
        throw new Error(`Schema id '${componentName}' names two different schemas (the second in ${context}, as ${io})`);
      }
      this.components[componentName] = hoisted;
    }
    return rewrite(root) as Json;
  }
}

/** `{name}` segments of an API Gateway route path, in order. */
const pathParameterNames = (path: string) => [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);

function parametersOf(emitter: SchemaEmitter, id: string, route: RouteDefinition, document: RouteDocument): Json[] {
  const parameters: Json[] = [];
  const declared = (where: 'query' | 'path', schema: z.core.$ZodType | undefined) => {
    if (!schema) return {} as Record<string, Json>;
    const json = emitter.convert(schema, 'input', `${id}_${where}`);
    const required = new Set((json.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries((json.properties as Record<string, Json> | undefined) ?? {})) {
      const { description, ...propertySchema } = property;
      parameters.push({
        name,
        in: where,
        required: where === 'path' || required.has(name),
        schema: propertySchema,
        ...(typeof description === 'string' ? { description } : {}),
      });
    }
    return json.properties as Record<string, Json>;
  };
  declared('query', document.request?.query);
  const pathProperties = declared('path', document.request?.path) ?? {};
  for (const name of pathParameterNames(route.path)) {
    if (!(name in pathProperties)) parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  if (route.writes) {
    parameters.push({
      name: IDEMPOTENCY_KEY_HEADER,
      in: 'header',
      required: false,
      description: 'Makes a retry safe: a retry with the same key within 24 hours answers the first response and changes nothing',
      schema: { type: 'string', pattern: IDEMPOTENCY_KEY_PATTERN.source },
    });
  }
  return parameters;
}

function scopeText(route: RouteDefinition): string {
  return route.scope === null ? 'Any active key of the pixel may call it.' : `Requires the \`${route.scope}\` scope.`;
}

const jsonContent = (schema: Json) => ({ 'application/json': { schema } });
/** Every answer after the key is known carries the key's quota and what is left of it (README "Rate limits"). */
const REQUEST_ID_HEADER = {
  'x-request-id': { $ref: '#/components/headers/RequestId' },
  'ratelimit-policy': { $ref: '#/components/headers/RateLimitPolicy' },
  ratelimit: { $ref: '#/components/headers/RateLimit' },
};

function operationOf(emitter: SchemaEmitter, id: string, route: RouteDefinition, document: RouteDocument): Json {
  const errorBody = emitter.convert(document.errorBody ?? errorBodySchema, 'output', `${id}_error`);
  const responses: Json = {
    [String(document.status ?? 200)]: {
      description: route.summary,
      headers: REQUEST_ID_HEADER,
      content: jsonContent(emitter.convert(document.response, 'output', `${id}_response`)),
    },
  };
  for (const status of statusesOf(route, document)) {
    responses[String(status)] = {
      description: STATUS_TEXT[status] ?? `Status ${status}`,
      headers: [409, 429, 503].includes(status) ? { ...REQUEST_ID_HEADER, 'retry-after': { $ref: '#/components/headers/RetryAfter' } } : REQUEST_ID_HEADER,
      content: jsonContent(errorBody),
    };
  }
  const body = document.request?.body;
  return {
    operationId: id,
    summary: route.summary,
    description: [routeDescriptions[id as RouteId], scopeText(route), route.writes ? 'A write: honours `Idempotency-Key`.' : undefined].filter(Boolean).join('\n\n'),
    tags: [document.tag],
    'x-scope': route.scope,
    security: [{ apiKey: route.scope === null ? [] : [route.scope], pixelId: [] }],
    parameters: parametersOf(emitter, id, route, document),
    ...(body
      ? { requestBody: { required: !document.bodyOptional, content: jsonContent(emitter.convert(body, 'input', `${id}_body`)) } }
      : {}),
    responses,
  };
}

/** The filter grammar (README "Filters"), as the `Filter` component that `filters` members refer to. */
function filterComponent(emitter: SchemaEmitter): Json {
  const self = { $ref: '#/components/schemas/Filter' };
  const group = (key: 'and' | 'or') => ({
    type: 'object',
    properties: { [key]: { type: 'array', items: self, minItems: FILTER_LIMITS.minGroupItems, maxItems: FILTER_LIMITS.maxGroupItems } },
    required: [key],
    additionalProperties: false,
  });
  return {
    description: `A condition, or a group of filters: \`and\`, \`or\` (${FILTER_LIMITS.minGroupItems} to ${FILTER_LIMITS.maxGroupItems} items) or \`not\`. At most ${FILTER_LIMITS.maxDepth} levels of groups and ${FILTER_LIMITS.maxConditions} conditions.`,
    anyOf: [
      group('and'),
      group('or'),
      { type: 'object', properties: { not: self }, required: ['not'], additionalProperties: false },
      emitter.convert(filterConditionSchema, 'input', 'FilterCondition'),
    ],
  };
}

const PUBLIC_CONTENT: Record<string, Json> = {
  'application/json': { $ref: '#/components/schemas/OpenApiDocument' },
  'text/html': { type: 'string' },
  'text/javascript': { type: 'string' },
};

/**
 * The OpenAPI 3.1 document of the API: one operation per row of the route table (lib/routes.ts),
 * completed by its entry in route-documents.ts, plus the public routes that serve the document.
 */
export function buildOpenApiDocument(): Json {
  const emitter = new SchemaEmitter();
  const paths: Record<string, Json> = {};
  const operation = (path: string, method: string, value: Json) => {
    paths[path] = { ...paths[path], [method.toLowerCase()]: value };
  };
  for (const route of routeTable) operation(route.path, route.method, operationOf(emitter, route.id, route, routeDocuments[route.id]));
  for (const route of publicRouteTable) {
    operation(route.path, route.method, {
      operationId: route.id,
      summary: route.summary,
      tags: ['About this API'],
      security: [],
      responses: { '200': { description: route.summary, content: { [route.contentType]: { schema: PUBLIC_CONTENT[route.contentType] } } } },
    });
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Merchant Analytics API',
      version: API_VERSION,
      description: [
        'Analytics and account settings for online merchants. Every route but the ones that describe the API takes two headers: `x-api-key` and `x-pixel-id`.',
        'Checks run in this order, and the first failure answers: headers present and well-formed, key found, active, unexpired and bound to the pixel (401); the route\u2019s scope (403); a body `pixelId` equal to the header (403); validation (400); the resource exists for this pixel (404).',
        'Every body is JSON; errors are `{ message, errors? }` (the events API has its own envelope). Responses over 1 KB are gzipped for clients that send `Accept-Encoding: gzip`.',
      ].join('\n\n'),
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    tags: [...new Set(Object.values(routeDocuments).map((document) => document.tag)), 'About this API'].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...emitter.components, Filter: filterComponent(emitter), OpenApiDocument: { type: 'object', description: 'An OpenAPI 3.1 document' } },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key, `upstack_\u2026` (`npm run keys -- create`). The scopes it needs are listed per operation.' },
        pixelId: { type: 'apiKey', in: 'header', name: 'x-pixel-id', description: 'The pixel the request targets; a key works for exactly one pixel' },
      },
      headers: {
        RequestId: { description: 'The request id, for support requests', schema: { type: 'string' } },
        RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'string' } },
        RateLimitPolicy: {
          description: "The key's quota for this route's policy (`api`, or `events` for the events API), IETF httpapi draft fields: `\"api\";q=1200;w=60` is 1,200 requests per 60-second window. Absent when the key is not known (401)",
          schema: { type: 'string' },
        },
        RateLimit: {
          description: 'What is left of the quota: `\"api\";r=1187;t=42` is 1,187 requests left, the window closing in 42 seconds. Absent when the key is not known (401)',
          schema: { type: 'string' },
        },
      },
    },
  };
}

let built: Json | undefined;

/** The document, built once per process: converting every schema costs a few milliseconds. */
export function openApiDocument(): Json {
  built ??= buildOpenApiDocument();
  return built;
}
