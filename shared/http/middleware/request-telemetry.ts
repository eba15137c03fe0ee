import { MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { logger } from '../../config/logger';
import { metrics } from '../../config/metrics';
import type { ApiContext } from '../api-context';

type Request = { response: APIGatewayProxyStructuredResultV2 | null; context: ApiContext };

/**
 * Per request: the request id as the logs' correlation id, then one log line and the route's
 * metrics once the answer is known (errors included, so it runs after the error responder):
 * `Latency` (ms), `Requests`, `ClientErrors` (4xx), `ServerErrors` (5xx), `RateLimited` (429), with
 * the route as dimension. The line names the route, status and latency, never a body, key, email
 * or phone. Metrics are flushed by Powertools' `logMetrics`, registered before this middleware.
 */
export const requestTelemetry = (route: { method: string; path: string }): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, ApiContext> => {
  const routeKey = `${route.method} ${route.path}`;
  // Per invocation: the local server runs one handler for many concurrent requests.
  const startedAt = new WeakMap<ApiContext, number>();
  const record = ({ response, context }: Request): void => {
    const status = response?.statusCode ?? 500;
    const latencyMs = Math.round((performance.now() - (startedAt.get(context) ?? performance.now())) * 100) / 100;
    metrics.addDimension('route', routeKey);
    metrics.addMetric('Latency', MetricUnit.Milliseconds, latencyMs);
    metrics.addMetric('Requests', MetricUnit.Count, 1);
    metrics.addMetric('ClientErrors', MetricUnit.Count, status >= 400 && status < 500 ? 1 : 0);
    metrics.addMetric('ServerErrors', MetricUnit.Count, status >= 500 ? 1 : 0);
    if (status === 429) metrics.addMetric('RateLimited', MetricUnit.Count, 1);
    const line = { route: routeKey, status, latencyMs, ...(context.api?.principal ? { pixelId: context.api.principal.pixelId, apiKeyPk: context.api.principal.apiKeyPk } : {}) };
    if (status >= 500) logger.error('request failed', line);
    else logger.info('request', line);
  };
  return {
    name: 'requestTelemetry',
    before: ({ context }) => {
      startedAt.set(context, performance.now());
      logger.setCorrelationId(context.api.requestId);
    },
    after: record,
    onError: record,
  };
};
