import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { authenticate, authorize } from '../../auth/authenticate';
import type { Scope } from '../../auth/scopes';
import type { ApiContext } from '../api-context';

/** 401 for who you are, then 403 for what you may do: before anything reads the body. */
export const authenticateRequest = (
  requiredScope: Scope | null,
): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, ApiContext> => ({
  name: 'authenticateRequest',
  before: async ({ event, context }) => {
    const principal = await authenticate(event.headers, context.api.receivedAt);
    authorize(principal, requiredScope);
    context.api.principal = principal;
  },
});
