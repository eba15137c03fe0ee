import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { FUNCTION_DEFAULTS } from '../function-defaults';
import type { RouteDefinition } from '../routes';
import { toApiGatewayEvent } from './api-gateway-event';
import { matchRoute } from './route-matcher';

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

/** API Gateway's payload limit for HTTP APIs. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface LocalApi {
  url: string;
  close(): Promise<void>;
}

/**
 * Stands in for API Gateway: each request becomes a real payload-2.0 event for the handler the
 * route table names, and the handler's result becomes the HTTP response by the same rules API
 * Gateway applies (including its inference for results without a `statusCode`).
 */
export async function startLocalApi(options: {
  host: string;
  port: number;
  routes: ReadonlyArray<RouteDefinition & { id: string }>;
  handlers: ReadonlyMap<string, LambdaHandler>;
  onRequest?: (line: string) => void;
}): Promise<LocalApi> {
  const server: Server = createServer((request, response) => {
    const started = performance.now();
    void serve(request, response, options).finally(() =>
      options.onRequest?.(`${request.method} ${request.url} ${response.statusCode} ${(performance.now() - started).toFixed(1)}ms`),
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  options: { host: string; routes: ReadonlyArray<RouteDefinition & { id: string }>; handlers: ReadonlyMap<string, LambdaHandler> },
): Promise<void> {
  const requestId = randomBytes(12).toString('base64url');
  const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'apigw-requestid': requestId, ...headers });
    response.end(JSON.stringify(body));
  };
  const body = await readBody(request);
  if (body === 'too-large') return send(413, { message: 'Request Entity Too Large' });

  const url = request.url ?? '/';
  const path = url.split('?')[0] as string;
  const match = matchRoute(options.routes, request.method ?? 'GET', path);
  if (match.kind === 'not-found') return send(404, { message: 'Not Found' });
  if (match.kind === 'method-not-allowed') {
    return send(405, { message: 'Method Not Allowed' }, { allow: match.allowedMethods.join(', ') });
  }

  const event = toApiGatewayEvent(
    {
      method: request.method ?? 'GET',
      url,
      rawHeaders: request.rawHeaders,
      body,
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
      protocol: `HTTP/${request.httpVersion}`,
    },
    { method: match.route.method, path: match.route.path, pathParameters: match.pathParameters },
    { requestId, now: new Date(), domainName: request.headers.host ?? options.host },
  );
  const handler = options.handlers.get(match.route.id);
  if (!handler) return send(500, { message: 'Internal Server Error' });

  let result: unknown;
  try {
    result = await handler(event, lambdaContext(match.route.id, requestId));
  } catch (error) {
    // What API Gateway answers when the function itself fails.
    console.error(`[local-api] ${match.route.id} threw:`, error);
    return send(500, { message: 'Internal Server Error' });
  }
  writeResult(response, result, requestId);
}

function writeResult(response: ServerResponse, result: unknown, requestId: string): void {
  const structured =
    result !== null && typeof result === 'object' && 'statusCode' in result
      ? (result as APIGatewayProxyStructuredResultV2)
      : { statusCode: 200, headers: { 'content-type': 'application/json' }, body: typeof result === 'string' ? result : JSON.stringify(result) };
  const headers: Record<string, string | string[]> = { ...(structured.headers as Record<string, string>), 'apigw-requestid': requestId };
  if (structured.cookies?.length) headers['set-cookie'] = structured.cookies;
  const body = structured.body === undefined ? '' : structured.body;
  response.writeHead(structured.statusCode ?? 200, headers);
  response.end(structured.isBase64Encoded ? Buffer.from(body, 'base64') : body);
}

function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? 'too-large' : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** The parts of the Lambda context handlers and middy use, with the deployed timeout. */
export function lambdaContext(functionName: string, requestId: string): Context {
  const deadline = Date.now() + FUNCTION_DEFAULTS.timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(FUNCTION_DEFAULTS.memoryMiB),
    awsRequestId: requestId,
    logGroupName: `/local/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
