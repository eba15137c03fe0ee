import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type * as z from 'zod';
import type { RequestPrice } from '../analytics/request-cost';
import type { Principal } from '../auth/authenticate';
import type { Scope } from '../auth/scopes';
import { logger } from '../config/logger';
import { metrics } from '../config/metrics';
import { startTracing } from '../config/tracing';
import type { ApiContext } from './api-context';
import { withDeadline } from '../request-deadline';
import { authenticateRequest } from './middleware/authenticate';
import { bodyPixelIdMatchesHeader } from './middleware/body-pixel-id';
import { bodySizeLimit } from './middleware/body-size-limit';
import { compressResponse, DEFAULT_HOW_TO_NARROW } from './middleware/compress-response';
import { errorResponder } from './middleware/error-responder';
import { jsonBody } from './middleware/json-body';
import { normalizeHeaders } from './middleware/normalize-headers';
import { priceRequest } from './middleware/price-request';
import { requestIdHeader, requestIdOf } from './middleware/request-id';
import { requestTelemetry } from './middleware/request-telemetry';
import { validateRequest, type RequestSchemas, type SchemaOf } from './middleware/validate-request';
import { jsonResponse } from './response';

type Parsed<S extends RequestSchemas, K extends keyof RequestSchemas> = SchemaOf<S[K]> extends z.core.$ZodType
  ? z.output<SchemaOf<S[K]>>
  : undefined;

/** What a handler receives: everything already authenticated, authorised and validated. */
export interface ApiRequest<S extends RequestSchemas> {
  body: Parsed<S, 'body'>;
  query: Parsed<S, 'query'>;
  path: Parsed<S, 'path'>;
  /** The body as parsed JSON, before validation; for endpoints that validate it themselves. */
  rawBody: Record<string, unknown> | undefined;
  principal: Principal;
  requestId: string;
  receivedAt: Date;
}

export interface ApiResult {
  statusCode?: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface EndpointDefinition<S extends RequestSchemas> {
  /**
   * The endpoint's row of the route table: its scope gates it, and a route that `writes` honours
   * the Idempotency-Key header.
   */
  route: { method: string; path: string; scope: Scope | null; writes: boolean };
  /**
   * Body, query and path schemas, each best given as a loader (`() => import(...)`): like the
   * services a handler imports inside its function, they are then evaluated at the first request
   * that needs them, not at every cold start (README, "Benchmarks").
   */
  schemas?: S;
  /** Parse the body as a JSON object even without a body schema: the handler validates it itself. */
  jsonBody?: boolean;
  /** 413 for a larger raw body, checked before the body is parsed. */
  maxBodyBytes?: number;
  /**
   * An analytics endpoint's price (analytics/request-cost.ts), from its validated body, before
   * the handler reads anything: over a cap a 400, else counted against the key's cost quota.
   */
  price?: (body: Parsed<S, 'body'>) => Promise<RequestPrice>;
  /** How a client asks for less, in the words of the 400 for a price over a cap or a response over the size limit. */
  howToNarrow?: string;
  /**
   * The Idempotency-Key handling, given by every route the table marks `writes` (and by no other)
   * as its loader, `idempotency: loadIdempotency` (./idempotency-loader.ts): the import then sits
   * in the write functions' bundles only, not in the read functions' (README, "Benchmarks").
   */
  idempotency?: () => Promise<typeof import('./idempotency')>;
  /** Replaces the standard error body, for an API whose errors have their own envelope. */
  errorResponder?: () => MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>;
}

/**
 * Wraps one endpoint in the shared request pipeline. The order is the architecture's order of
 * checks: headers and key (401), the key's quota (429), scope (403), body size (413, where the endpoint has a limit),
 * body parsing (400), body pixelId (403), validation (400), an analytics request's price (400 over
 * a cap, 429 over the cost quota); then, on a write route, the
 * Idempotency-Key check (400, 409, 422, or the recorded response); the handler then answers 404s
 * and successes.
 */
export function apiHandler<S extends RequestSchemas = Record<string, never>>(
  endpoint: EndpointDefinition<S>,
  handle: (request: ApiRequest<S>) => Promise<ApiResult>,
) {
  const schemas = endpoint.schemas ?? ({} as S);
  const { idempotency } = endpoint;
  // At load, so a write route without its Idempotency-Key handling cannot be deployed, nor a test load it.
  if (endpoint.route.writes !== (idempotency !== undefined)) {
    throw new Error(
      `${endpoint.route.method} ${endpoint.route.path}: ${endpoint.route.writes ? 'a write route needs' : 'only a write route takes'} \`idempotency: loadIdempotency\``,
    );
  }
  // No early timeout answer: racing the handler would answer while its write goes on. Instead
  // every store call is held to the request's deadline (store/sdk-config.ts), so the handler
  // itself ends in time with what really happened.
  const pipeline = middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, ApiContext>({ timeoutEarlyInMillis: 0 })
    // Every log line carries the Lambda context; metrics are flushed once the telemetry added them.
    // Never the event itself, whatever POWERTOOLS_LOGGER_LOG_EVENT says: its query string, headers
    // and body can hold a key, an email address or a phone number.
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(logMetrics(metrics))
    .use(requestTelemetry(endpoint.route))
    .use(requestIdHeader())
    .use(compressResponse(endpoint.howToNarrow))
    .use(normalizeHeaders())
    .use(authenticateRequest(endpoint.route));
  if (endpoint.maxBodyBytes !== undefined) pipeline.use(bodySizeLimit(endpoint.maxBodyBytes));
  if (schemas.body || endpoint.jsonBody) pipeline.use(jsonBody()).use(bodyPixelIdMatchesHeader());
  pipeline.use(validateRequest(schemas));
  if (endpoint.price) pipeline.use(priceRequest(endpoint.price as (body: unknown) => Promise<RequestPrice>, endpoint.howToNarrow ?? DEFAULT_HOW_TO_NARROW));
  pipeline.use((endpoint.errorResponder ?? errorResponder)());

  const routeKey = `${endpoint.route.method} ${endpoint.route.path}`;
  const handler = pipeline.handler(async (event, context) => {
    const { api } = context;
    const principal = api.principal as Principal;
    const run = async () => {
      const result = await handle({
        body: api.body as Parsed<S, 'body'>,
        query: api.query as Parsed<S, 'query'>,
        path: api.path as Parsed<S, 'path'>,
        rawBody: api.rawBody,
        principal,
        requestId: api.requestId,
        receivedAt: api.receivedAt,
      });
      return { ...result, statusCode: result.statusCode ?? 200 };
    };
    const result = idempotency ? await runWrite(idempotency, event, api, principal.pixelId, routeKey, run) : await run();
    return jsonResponse(result.statusCode, result.body, result.headers);
  });

  // The state object is created per invocation, before any middleware runs. Tracing starts
  // before the pipeline, so the first client any middleware builds is already traced.
  return async (event: APIGatewayProxyEventV2, context: Context) => {
    await startTracing();
    return withDeadline(deadlineOf(context), () => handler(event, Object.assign(context, { api: stateFor(event) }) as ApiContext));
  };
}

/** A write route's handler, behind its Idempotency-Key; the idempotency store is loaded with the first write. */
async function runWrite(
  loadIdempotency: NonNullable<EndpointDefinition<RequestSchemas>['idempotency']>,
  event: APIGatewayProxyEventV2,
  api: ApiContext['api'],
  pixelId: string,
  route: string,
  run: () => Promise<{ statusCode: number; body: unknown; headers?: Record<string, string> }>,
) {
  const { requestContent, runIdempotently } = await loadIdempotency();
  return runIdempotently(
    {
      headers: event.headers,
      pixelId,
      route,
      content: requestContent(event, api.rawBody),
      receivedAt: api.receivedAt,
    },
    run,
  );
}

/** When the function will be stopped; unknown (no deadline) when the context cannot say. */
function deadlineOf(context: Context): number | undefined {
  return typeof context.getRemainingTimeInMillis === 'function' ? Date.now() + context.getRemainingTimeInMillis() : undefined;
}

function stateFor(event: APIGatewayProxyEventV2): ApiContext['api'] {
  const epoch = event.requestContext?.timeEpoch;
  return { requestId: requestIdOf(event), receivedAt: epoch ? new Date(epoch) : new Date() };
}
