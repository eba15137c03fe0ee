import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';

/**
 * API Gateway v2 already lower-cases header names; direct invocations and other front doors may
 * not. Normalising here means no later middleware has to care.
 */
export const normalizeHeaders = (): MiddlewareObj<APIGatewayProxyEventV2> => ({
  name: 'normalizeHeaders',
  before: ({ event }) => {
    const headers: Record<string, string | undefined> = {};
    for (const [name, value] of Object.entries(event.headers ?? {})) headers[name.toLowerCase()] = value;
    event.headers = headers;
  },
});
