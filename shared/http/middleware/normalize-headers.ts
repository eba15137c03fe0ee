import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/**
 * API Gateway v2 already lower-cases header names; direct invocations and other front doors may
 * not. Normalising here means no later middleware has to care.
 */
export const normalizeHeaders = (): MiddlewareObj<APIGatewayProxyEventV2> => ({
  name: 'normalizeHeaders',
  before: ({ event }) => {
    // fromEntries, not assignment: a header named `__proto__` stays a header.
    event.headers = Object.fromEntries(Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  },
});
