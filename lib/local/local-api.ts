import { randomBytes } from 'node:crypto';
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { FUNCTION_DEFAULTS } from '../function-defaults';
import type { RouteDefinition } from '../routes';
import { createAdmission, type Admission } from './admission';
import { toApiGatewayEvent } from './api-gateway-event';
import { limitConnections, type ConnectionLimits } from './connection-limits';
import { matchRoute, type RouteMatch } from './route-matcher';

export type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

/** API Gateway's payload limit for HTTP APIs. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** API Gateway's integration timeout: a request still uploading after this is given up on. */
const REQUEST_TIMEOUT_MS = 30_000;
/**
 * A request's headers must arrive in full within this of its first byte; a connection's first
 * request, within this of the connection opening (Node starts the clock at the connection), so a
 * connection that sends nothing is closed after it too.
 */
const HEADERS_TIMEOUT_MS = 5_000;
/** How long a kept-alive connection may wait, idle, for its next request. */
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** Each open connection costs buffers; a laptop's clients never need more than this at once. */
const MAX_CONNECTIONS = 1_000;
/** A share of the whole, so that no one client address can take every connection. */
const MAX_CONNECTIONS_PER_ADDRESS = 250;
/** A connection idle this long may be closed to make room for a new one past a bound. */
const MIN_IDLE_BEFORE_EVICTION_MS = 1_000;
/** How long a connection closed after one of Node's own answers may take to read it before it is dropped. */
const CLOSE_LINGER_MS = 1_000;
/** How long a shutdown waits for requests in progress before dropping their connections. */
const CLOSE_GRACE_MS = 3_000;
/**
 * Handlers running at once (admission.ts). Enough to overlap the store's I/O on this machine's
 * cores; a request waiting longer than the wait bound is answered 503 with Retry-After.
 */
export const LOCAL_CONCURRENCY = { maxInFlight: 32, maxWaitMs: 5_000, maxWaiting: 5_000 } as const;

export interface LocalApi {
  url: string;
  close(): Promise<void>;
}

/**
 * Stands in for API Gateway: each request becomes a real payload-2.0 event for the handler the
 * route table names, and the handler's result becomes the HTTP response by the same rules API
 * Gateway applies (including its inference for results without a `statusCode`). Every response,
 * its own 404/405/413/500 included, carries `x-request-id`. A client that aborts, stalls or
 * floods its upload only loses its own request, and clients holding connections open without
 * using them cannot lock the others out (connection-limits.ts).
 */
export async function startLocalApi(options: {
  host: string;
  port: number;
  routes: ReadonlyArray<RouteDefinition & { id: string }>;
  handlers: ReadonlyMap<string, LambdaHandler>;
  onRequest?: (line: string) => void;
  /** How long a request may take to arrive in full (headers and body). */
  requestTimeoutMs?: number;
  /** How long a request's headers may take to arrive in full, counted from the connection's opening for its first request. */
  headersTimeoutMs?: number;
  /** Handlers running at once, and how long and how many requests may wait for a turn. */
  concurrency?: { maxInFlight: number; maxWaitMs: number; maxWaiting: number };
  /** Bounds on open connections, where not the defaults. */
  connections?: Partial<ConnectionLimits>;
}): Promise<LocalApi> {
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const headersTimeout = Math.min(requestTimeout, options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS);
  const admission = createAdmission(options.concurrency ?? LOCAL_CONCURRENCY);
  // Node answers 408 and closes the connection when a request has not arrived in full in time;
  // it looks for such requests every `connectionsCheckingInterval`.
  const timeouts = {
    requestTimeout,
    headersTimeout,
    connectionsCheckingInterval: Math.min(1_000, headersTimeout / 2),
  };
  const server: Server = createServer(timeouts, (request, response) => {
    const started = performance.now();
    const route = routeOf(request, options.routes);
    if (connectionLimits.isSurplus(request.socket)) {
      // Past a connection bound with none idle long enough to make room: an answer to retry, then the connection goes.
      sendJson(response, 503, { message: 'Service Unavailable: too many connections at once; retry shortly' }, newRequestId(), { 'retry-after': '1', connection: 'close' });
      options.onRequest?.(`${request.method} ${route.name} 503 ${(performance.now() - started).toFixed(1)}ms`);
      return;
    }
    serve(request, response, { ...options, admission }, route.match)
      .catch((error: unknown) => {
        console.error(`[local-api] ${request.method} ${route.name} failed:`, error);
        if (!response.headersSent && !response.destroyed) sendJson(response, 500, { message: 'Internal Server Error' }, newRequestId());
        else response.destroy();
      })
      .finally(() => options.onRequest?.(`${request.method} ${route.name} ${response.statusCode} ${(performance.now() - started).toFixed(1)}ms`));
  });
  server.on('clientError', answerClientError);
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  // Not `server.maxConnections`: Node would refuse a connection past it before an idle one could make room.
  const connectionLimits = limitConnections(server, {
    perAddress: MAX_CONNECTIONS_PER_ADDRESS,
    total: MAX_CONNECTIONS,
    minIdleMs: MIN_IDLE_BEFORE_EVICTION_MS,
    ...options.connections,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Requests being handled get a moment to finish; a client still uploading (or stalling) does not hold the shutdown.
        const deadline = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        server.close(() => {
          clearTimeout(deadline);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

/**
 * Node's own answers to a request it could not read (malformed, headers too large, not complete
 * before the request timeout), with a request id like every other answer. The connection is then
 * dropped once its client had a moment to read the answer: ending it only half-closes it (Node's
 * HTTP server allows half-open connections), and a client that never closes its side would hold it.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const busy = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || !socket.writable || busy) return void socket.destroy();
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const requestId = newRequestId();
  const body = JSON.stringify({ message: STATUS_CODES[status] });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\napigw-requestid: ${requestId}\r\nx-request-id: ${requestId}\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), CLOSE_LINGER_MS).unref();
}

/**
 * The route a request is for, and its name in log lines: the route's path template (so no path
 * parameter), or, when no route has the path, the path alone. Never the query string, a header
 * or the body: any of them can hold an email address or a phone number.
 */
function routeOf(request: IncomingMessage, routes: ReadonlyArray<RouteDefinition & { id: string }>): { match: RouteMatch<RouteDefinition & { id: string }>; name: string } {
  const path = (request.url ?? '/').split('?')[0] as string;
  const match = matchRoute(routes, request.method ?? 'GET', path);
  return { match, name: match.kind === 'found' ? match.route.path : match.kind === 'method-not-allowed' ? match.path : path };
}

const newRequestId = () => randomBytes(12).toString('base64url');

function sendJson(response: ServerResponse, status: number, body: unknown, requestId: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'apigw-requestid': requestId,
    'x-request-id': requestId,
    ...headers,
  });
  response.end(JSON.stringify(body));
}

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  options: { host: string; handlers: ReadonlyMap<string, LambdaHandler>; admission: Admission },
  match: RouteMatch<RouteDefinition & { id: string }>,
): Promise<void> {
  const requestId = newRequestId();
  // A client that disconnects mid-answer makes writes fail; that is no reason to stop serving.
  response.on('error', () => undefined);
  const send = (status: number, body: unknown, headers: Record<string, string> = {}) => sendJson(response, status, body, requestId, headers);

  const body = await readBody(request);
  // The client is gone (aborted, reset or timed out): there is nobody to answer.
  if (body === 'aborted') return;
  if (body === 'too-large') {
    // Answer at once, and keep reading: most clients send the whole body before they read an
    // answer, and one still writing when the connection closes sees a reset (EPIPE), not the 413.
    // So no `connection: close` (with it Node closes the socket as soon as the answer is out):
    // the rest of the upload is read and thrown away, up to a bound; past it the connection is
    // dropped. An upload read to its end leaves the connection at the next request, so it stays
    // open: the answer promised keep-alive, and a client may already be sending on it again.
    discardUpload(request);
    return send(413, { message: 'Request Entity Too Large' });
  }

  const url = request.url ?? '/';
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
    // The function's deadline starts when it runs, as a Lambda invocation's does, not when the request arrived.
    const admitted = await options.admission.run(async () => ({ result: await handler(event, lambdaContext(match.route.id, requestId)) }));
    if (!admitted) return send(503, { message: 'Service Unavailable: too many requests at once; retry shortly' }, { 'retry-after': '1' });
    result = admitted.result;
  } catch (error) {
    // What API Gateway answers when the function itself fails.
    console.error(`[local-api] ${match.route.id} threw:`, error);
    return send(500, { message: 'Internal Server Error' });
  }
  if (response.destroyed) return;
  writeResult(response, result, requestId);
}

function writeResult(response: ServerResponse, result: unknown, requestId: string): void {
  const structured =
    result !== null && typeof result === 'object' && 'statusCode' in result
      ? (result as APIGatewayProxyStructuredResultV2)
      : { statusCode: 200, headers: { 'content-type': 'application/json' }, body: typeof result === 'string' ? result : JSON.stringify(result) };
  const headers: Record<string, string | string[]> = {
    'x-request-id': requestId,
    ...(structured.headers as Record<string, string>),
    'apigw-requestid': requestId,
  };
  if (structured.cookies?.length) headers['set-cookie'] = structured.cookies;
  const body = structured.body === undefined ? '' : structured.body;
  response.writeHead(structured.statusCode ?? 200, headers);
  response.end(structured.isBase64Encoded ? Buffer.from(body, 'base64') : body);
}

/**
 * The whole body, or why there is none: `too-large` as soon as it is known to exceed the limit
 * (from `Content-Length`, or from what arrived), `aborted` when the client went away first.
 * Never rejects: a reset connection is the client's problem, not the server's.
 */
function readBody(request: IncomingMessage): Promise<Buffer | 'too-large' | 'aborted'> {
  if (Number(request.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return Promise.resolve('too-large');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      chunks.length = 0;
      request.pause();
      resolve('too-large');
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', () => resolve('aborted'));
    request.on('close', () => {
      if (!request.complete) resolve('aborted');
    });
  });
}

/** How much of an oversized upload is read and discarded so its sender sees the 413. */
const MAX_DISCARDED_BYTES = 4 * MAX_BODY_BYTES;

/** Reads and drops the rest of an upload; past the bound, drops the connection. */
function discardUpload(request: IncomingMessage): void {
  if (request.complete) return;
  let discarded = 0;
  request.removeAllListeners('data');
  request.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > MAX_DISCARDED_BYTES) request.socket.destroy();
  });
  request.resume();
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
