import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type * as z from 'zod';
import { BadRequestError, issueAt, type ValidationIssue } from '../errors';
import { toValidationIssues, type AnySchema } from '../zod-issues';
import type { ApiContext } from '../api-context';

/**
 * A schema, or a function that loads it. A handler passes loaders (`() => import(...)`), so a
 * function's bundle evaluates zod and its schemas at the first request that needs them rather than
 * at module load, where every cold start would pay for them.
 */
export type SchemaSource = AnySchema | (() => Promise<AnySchema>);

export interface RequestSchemas {
  body?: SchemaSource;
  query?: SchemaSource;
  path?: SchemaSource;
}

/** The schema a source stands for. */
export type SchemaOf<T> = T extends () => Promise<infer S> ? S : T;

interface LoadedSchemas {
  body?: AnySchema;
  query?: AnySchema;
  path?: AnySchema;
}

async function load(source: SchemaSource | undefined): Promise<AnySchema | undefined> {
  return typeof source === 'function' ? source() : source;
}

/**
 * A route that declares no query parameters takes none: each one is a 400, reported as an unknown
 * key the way a strict schema reports it. Checked without zod, so that a route with no schemas
 * does not load the validation library at all.
 */
function undeclaredParameters(query: Record<string, unknown>): ValidationIssue[] {
  return Object.keys(query).map((key) => issueAt(['query', key], `Unknown key '${key}' is not allowed`, 'unknown_key'));
}

/**
 * A parameter sent twice (`?type=view&type=pnl_view`) reaches the function comma-joined, which
 * could read as a value of its own; it is refused by name instead. Read from the raw query
 * string, the one place every repetition is still visible.
 */
function repeatedParameters(rawQueryString: string | undefined): ValidationIssue[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const [key] of new URLSearchParams(rawQueryString ?? '')) {
    if (seen.has(key)) repeated.add(key);
    seen.add(key);
  }
  return [...repeated].map((key) => issueAt(['query', key], `Query parameter '${key}' may appear only once`, 'invalid_value'));
}

/**
 * Parses body, query and path parameters with the route's zod schemas and reports every problem
 * at once. Body issues are located from the body root; query and path issues under `query` and
 * `path`, so a client can tell them apart. Every route declares its query parameters, so an
 * unknown one is always a 400.
 */
export const validateRequest = (
  sources: RequestSchemas,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, ApiContext> => {
  let loaded: LoadedSchemas | undefined;
  const loadAll = async (): Promise<LoadedSchemas> => {
    const [body, query, path] = await Promise.all([load(sources.body), load(sources.query), load(sources.path)]);
    return (loaded = { body, query, path });
  };
  return {
    name: 'validateRequest',
    before: async ({ event, context }) => {
      const schemas = loaded ?? (await loadAll());
      const state = context.api;
      const issues = repeatedParameters(event.rawQueryString);
      const repeated = new Set(issues.map((issue) => issue.key));
      const parts = [
        ['body', schemas.body, state.rawBody, []],
        ['query', schemas.query, event.queryStringParameters ?? {}, ['query']],
        ['path', schemas.path, event.pathParameters ?? {}, ['path']],
      ] as const;
      for (const [part, schema, input, prefix] of parts) {
        if (part === 'query' && !schema) {
          issues.push(...undeclaredParameters(input as Record<string, unknown>).filter((issue) => !repeated.has(issue.key)));
          continue;
        }
        if (!schema) continue;
        const result = schema.safeParse(input);
        if (result.success) state[part] = result.data;
        // A repeated parameter's joined value fails its schema too; the repetition is the problem to report.
        else issues.push(...toValidationIssues(result.error, prefix).filter((issue) => part !== 'query' || !repeated.has(issue.path[1] ?? '')));
      }
      if (issues.length > 0) throw new BadRequestError('Request validation failed', issues);
    },
  };
};
