import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { toApiGatewayEvent } from '../lib/local/api-gateway-event';
import { lambdaContext, type LambdaHandler } from '../lib/local/local-api';
import { routes, type RouteId } from '../lib/routes';
import type { Scope } from '../shared/auth/scopes';

/**
 * Invoking handlers the way API Gateway does, for the benchmark's in-process sections (warm
 * latency, ad listing): the real middy stack, auth against the store and validation, with no
 * network in front. The event is built outside the timed span, since building it is API
 * Gateway's work.
 */
const DOMAIN_NAME = 'bench.execute-api.local';

/** A request to one route of the route table. */
export interface BenchRequest {
  routeId: RouteId;
  /** Values for the route's `{name}` segments. */
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** The function's deadline from the start of the call; the deployed timeout when absent. */
  timeoutMs?: number;
}

export interface Credentials {
  apiKey: string;
  pixelId: string;
}

export interface Invocation {
  elapsedMs: number;
  /** The response body as JSON text (decompressed when the handler gzipped it). */
  body: string;
  /** The body's size as the handler returned it: what would cross the network. */
  wireBytes: number;
}

/**
 * Imports each route's handler module. Handler and service modules build their SDK clients at
 * import, so this may only run once the environment points at the local services.
 */
export async function importHandlers(routeIds: Iterable<RouteId>, projectRoot: string): Promise<Map<RouteId, LambdaHandler>> {
  const handlers = new Map<RouteId, LambdaHandler>();
  for (const routeId of new Set(routeIds)) {
    const modulePath = pathToFileURL(resolve(projectRoot, routes[routeId].handler)).href;
    const module = (await import(modulePath)) as { handler?: unknown };
    if (typeof module.handler !== 'function') throw new Error(`${routes[routeId].handler} does not export a handler`);
    handlers.set(routeId, module.handler as LambdaHandler);
  }
  return handlers;
}

/** The scopes a key needs to call every one of these routes. */
export function scopesNeeded(routeIds: Iterable<RouteId>): Scope[] {
  const scopes = [...routeIds].map((routeId) => routes[routeId].scope as Scope | null);
  return [...new Set(scopes.filter((scope): scope is Scope => scope !== null))];
}

/**
 * One invocation, timed from handing over the event to the result. A benchmark of error
 * responses measures the wrong code path, so any status other than 200 throws, naming `label`.
 */
export async function invoke(
  label: string,
  request: BenchRequest,
  handlers: ReadonlyMap<RouteId, LambdaHandler>,
  credentials: Credentials,
): Promise<Invocation> {
  const { elapsedMs, result } = await invokeHandler(label, request, handlers, credentials);
  return readResult(label, elapsedMs, result);
}

/** What a handler returned, as API Gateway receives it. */
export interface HandlerResult {
  statusCode?: number;
  body?: string;
  isBase64Encoded?: boolean;
  headers?: Record<string, string>;
}

/**
 * The timed half of `invoke`: the handler's own work and nothing of the client's, so a section can
 * run it in the serving process and decode the answer (`readResult`) in another one.
 */
export async function invokeHandler(
  label: string,
  request: BenchRequest,
  handlers: ReadonlyMap<RouteId, LambdaHandler>,
  credentials: Credentials,
): Promise<{ elapsedMs: number; result: HandlerResult }> {
  const handler = handlers.get(request.routeId);
  if (!handler) throw new Error(`${label}: no handler imported for route ${request.routeId}`);
  const requestId = randomBytes(12).toString('base64url');
  const event = eventFor(label, request, credentials, requestId);
  const context = lambdaContext(request.routeId, requestId);
  const timeoutMs = request.timeoutMs ?? deadlineOverride();
  if (timeoutMs !== undefined) {
    const deadline = Date.now() + timeoutMs;
    context.getRemainingTimeInMillis = () => Math.max(0, deadline - Date.now());
  }
  const started = performance.now();
  const result = await handler(event, context);
  const elapsedMs = performance.now() - started;
  return { elapsedMs, result: (result ?? {}) as HandlerResult };
}

/** The client's half of `invoke`: checks the status and decodes the body. */
export function readResult(label: string, elapsedMs: number, result: HandlerResult): Invocation {
  const { statusCode, body = '', isBase64Encoded, headers = {} } = result;
  if (statusCode !== 200) throw new Error(`${label} answered ${statusCode ?? 'no status'}: ${body.slice(0, 500)}`);
  const bytes = isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  const text = headers['content-encoding'] === 'gzip' ? gunzipSync(bytes).toString('utf8') : bytes.toString('utf8');
  return { elapsedMs, body: text, wireBytes: Buffer.byteLength(body, 'utf8') };
}

/**
 * `BENCH_DEADLINE_MS`: a deadline for every invocation that sets none, instead of the deployed
 * timeout. `--quick` sets it: its data is small, so a request past 10 s there says the machine is
 * loaded (CI runs the quick bench beside the test suite), and the run is meant to show that every
 * case answers and produces figures.
 */
export function deadlineOverride(): number | undefined {
  const value = process.env.BENCH_DEADLINE_MS;
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < 1) throw new Error('BENCH_DEADLINE_MS must be a positive integer');
  return ms;
}

/** The API Gateway event of a request; built outside any timed span, since building it is API Gateway's work. */
export function eventFor(label: string, request: BenchRequest, credentials: Credentials, requestId: string): APIGatewayProxyEventV2 {
  const route = routes[request.routeId];
  const pathParameters = request.pathParameters ?? {};
  const path = route.path.replace(/\{([^}]+)\}/g, (_segment, name: string) => {
    const value = pathParameters[name];
    if (value === undefined) throw new Error(`${label}: no value for path parameter '${name}'`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(request.query ?? {}).toString();
  const body = request.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(request.body), 'utf8');
  const rawHeaders = [
    'Host', DOMAIN_NAME,
    'User-Agent', 'merchant-analytics-bench',
    'Accept', 'application/json',
    // What HTTP clients send by default; without it a large page cannot leave Lambda (6 MB).
    'Accept-Encoding', 'gzip, deflate, br',
    'x-api-key', credentials.apiKey,
    'x-pixel-id', credentials.pixelId,
    ...(body.length > 0 ? ['Content-Type', 'application/json', 'Content-Length', String(body.length)] : []),
  ];
  return toApiGatewayEvent(
    { method: route.method, url: query ? `${path}?${query}` : path, rawHeaders, body, sourceIp: '127.0.0.1', protocol: 'HTTP/1.1' },
    { method: route.method, path: route.path, pathParameters },
    { requestId, now: new Date(), domainName: DOMAIN_NAME },
  );
}
