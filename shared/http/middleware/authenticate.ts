import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isOverQuota, policyForRoute, rateLimitHeaders } from '../../auth/rate-limit';
import type { Scope } from '../../auth/scopes';
import type { ApiContext } from '../api-context';
import { TooManyRequestsError } from '../errors';
import { loadOnce } from '../../config/lazy';

// Loaded at the first request: the key store, and with it the SDK, is not a cost of init.
const loadAuthentication = loadOnce(() => import('../../auth/authenticate'));

/**
 * 401 for who you are, 429 for how often, then 403 for what you may do: before anything reads the
 * body. The quota's headers go on every answer after the key is known, errors included.
 */
export const authenticateRequest = (route: {
  path: string;
  scope: Scope | null;
}): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, ApiContext> => {
  const policy = policyForRoute(route);
  const stamp = (request: { response: APIGatewayProxyStructuredResultV2 | null; context: ApiContext }): void => {
    const headers = request.context.api?.rateLimitHeaders;
    if (request.response && headers) request.response.headers = { ...request.response.headers, ...headers };
  };
  return {
    name: 'authenticateRequest',
    before: async ({ event, context }) => {
      const { authenticate, authorize } = await loadAuthentication();
      const principal = await authenticate(event.headers, context.api.receivedAt, policy);
      const headers = rateLimitHeaders(principal.rateLimit, context.api.receivedAt.getTime());
      context.api.rateLimitHeaders = headers;
      if (isOverQuota(principal.rateLimit)) {
        throw new TooManyRequestsError(
          `This API key has used its ${policy === 'events' ? 'events ' : ''}quota of ${principal.rateLimit.limit.quota} requests per ${principal.rateLimit.limit.windowSeconds} s; retry after ${headers['retry-after']} s`,
          headers,
        );
      }
      authorize(principal, route.scope);
      context.api.principal = principal;
    },
    after: stamp,
    onError: stamp,
  };
};
