import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type * as z from 'zod';
import { BadRequestError } from '../errors';
import { toValidationIssues } from '../zod-issues';
import type { ApiContext } from '../api-context';

export interface RequestSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
  path?: z.ZodType;
}

/**
 * Parses body, query and path parameters with the route's zod schemas and reports every problem
 * at once. Body issues are located from the body root; query and path issues under `query` and
 * `path`, so a client can tell them apart.
 */
export const validateRequest = (
  schemas: RequestSchemas,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, ApiContext> => ({
  name: 'validateRequest',
  before: ({ event, context }) => {
    const state = context.api;
    const issues = [];
    const parts = [
      ['body', schemas.body, state.rawBody, []],
      ['query', schemas.query, event.queryStringParameters ?? {}, ['query']],
      ['path', schemas.path, event.pathParameters ?? {}, ['path']],
    ] as const;
    for (const [part, schema, input, prefix] of parts) {
      if (!schema) continue;
      const result = schema.safeParse(input);
      if (result.success) state[part] = result.data;
      else issues.push(...toValidationIssues(result.error, prefix));
    }
    if (issues.length > 0) throw new BadRequestError('Request validation failed', issues);
  },
});
