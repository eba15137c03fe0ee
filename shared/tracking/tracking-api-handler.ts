import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { Principal } from '../auth/authenticate';
import type { Scope } from '../auth/scopes';
import type { ApiContext } from '../http/api-context';
import { ServiceUnavailableError } from '../http/errors';
import { authenticateRequest } from '../http/middleware/authenticate';
import { bodyPixelIdMatchesHeader } from '../http/middleware/body-pixel-id';
import { bodySizeLimit } from '../http/middleware/body-size-limit';
import { jsonBody } from '../http/middleware/json-body';
import { normalizeHeaders } from '../http/middleware/normalize-headers';
import { requestIdHeader, requestIdOf } from '../http/middleware/request-id';
import { jsonResponse } from '../http/response';
import { eventsErrorResponder } from './events-error-responder';

export interface TrackingRequest {
  /** The body as a parsed JSON object; the handler validates it (the events API reports problems its own way). */
  body: Record<string, unknown>;
  principal: Principal;
  requestId: string;
  receivedAt: Date;
}

/**
 * The request pipeline of the events API. The shared middlewares in the shared order (401, 403,
 * body, body pixelId), plus a raw-size check before the body is parsed (413), and the events
 * error responder in place of the shared one, so every error is in the events envelope. The
 * rest of the API keeps `apiHandler` unchanged.
 */
export function trackingApiHandler(
  endpoint: { scope: Scope; maxBodyBytes: number },
  handle: (request: TrackingRequest) => Promise<{ statusCode?: number; body: unknown }>,
) {
  const handler = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, ApiContext>({
    timeoutEarlyResponse: () => {
      throw new ServiceUnavailableError('The request timed out; retry it');
    },
  })
    .use(requestIdHeader())
    .use(normalizeHeaders())
    .use(authenticateRequest(endpoint.scope))
    .use(bodySizeLimit(endpoint.maxBodyBytes))
    .use(jsonBody())
    .use(bodyPixelIdMatchesHeader())
    .use(eventsErrorResponder())
    .handler(async (_event, context) => {
      const { api } = context;
      const result = await handle({
        body: api.rawBody as Record<string, unknown>,
        principal: api.principal as Principal,
        requestId: api.requestId,
        receivedAt: api.receivedAt,
      });
      return jsonResponse(result.statusCode ?? 200, result.body);
    });

  return (event: APIGatewayProxyEventV2, context: Context) => {
    const epoch = event.requestContext?.timeEpoch;
    const api = { requestId: requestIdOf(event), receivedAt: epoch ? new Date(epoch) : new Date() };
    return handler(event, Object.assign(context, { api }) as ApiContext);
  };
}
