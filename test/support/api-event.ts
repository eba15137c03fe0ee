import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { toApiGatewayEvent } from '../../lib/local/api-gateway-event';
import { lambdaContext } from '../../lib/local/local-api';

/** A real-shaped API Gateway v2 event, built by the same code the local server uses. */
export function apiEvent(request: {
  method: string;
  path: string;
  routePath?: string;
  headers?: Record<string, string>;
  body?: unknown;
  pathParameters?: Record<string, string>;
  now?: Date;
}): APIGatewayProxyEventV2 {
  const body =
    request.body === undefined ? Buffer.alloc(0) : Buffer.from(typeof request.body === 'string' ? request.body : JSON.stringify(request.body));
  return toApiGatewayEvent(
    {
      method: request.method,
      url: request.path,
      rawHeaders: Object.entries({ 'content-type': 'application/json', ...request.headers }).flat(),
      body,
      sourceIp: '127.0.0.1',
      protocol: 'HTTP/1.1',
    },
    { method: request.method, path: request.routePath ?? request.path.split('?')[0]!, pathParameters: request.pathParameters ?? {} },
    { requestId: randomUUID(), now: request.now ?? new Date(), domainName: 'test.local' },
  );
}

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

/** Invokes a handler and returns status, headers and the parsed JSON body. */
export async function invoke(handler: Handler, event: APIGatewayProxyEventV2) {
  const result = (await handler(event, lambdaContext('test', event.requestContext.requestId))) as APIGatewayProxyStructuredResultV2;
  return {
    status: result.statusCode ?? 200,
    headers: (result.headers ?? {}) as Record<string, string>,
    body: result.body ? (JSON.parse(result.body) as Record<string, any>) : undefined,
  };
}
