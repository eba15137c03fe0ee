import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

type Result = APIGatewayProxyStructuredResultV2;

/** Echoes the API Gateway request id on every response, success or error, for support requests. */
export const requestIdHeader = (): MiddlewareObj<APIGatewayProxyEventV2, Result> => {
  const stamp = (request: { event: APIGatewayProxyEventV2; response: Result | null }): void => {
    if (request.response) {
      request.response.headers = { ...request.response.headers, 'x-request-id': requestIdOf(request.event) };
    }
  };
  return { name: 'requestIdHeader', after: stamp, onError: stamp };
};

export function requestIdOf(event: APIGatewayProxyEventV2): string {
  return event.requestContext?.requestId ?? 'unknown';
}
