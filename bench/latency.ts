import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { toApiGatewayEvent } from '../lib/local/api-gateway-event';
import { ensureTable, startEmbeddedDynamo } from '../lib/local/dynamodb';
import { startEventBridgeSink, type EventBridgeSink } from '../lib/local/eventbridge-sink';
import { lambdaContext, type LambdaHandler } from '../lib/local/local-api';
import { localConfig, useLocalServices } from '../lib/local/local-config';
import { routes } from '../lib/routes';
import type { Scope } from '../shared/auth/scopes';
import type { LatencyCase } from './latency-cases';

const BENCH_PIXEL_ID = 'px_bench';
const DOMAIN_NAME = 'bench.execute-api.local';

interface Credentials {
  apiKey: string;
  pixelId: string;
}

/**
 * Warm, in-process latency of whole invocations: the real middy stack, auth against the store,
 * validation and the real SDK clients, against in-memory dynalite and the local EventBridge
 * stand-in. Excludes API Gateway and the network, so it measures what our code costs per request.
 * Returns the per-request samples in milliseconds, by case id.
 */
export async function measureLatency(options: {
  cases: readonly LatencyCase[];
  projectRoot: string;
  requests: number;
  warmupRequests: number;
}): Promise<Map<string, number[]>> {
  // The SDK's notice that it will drop Node 20 is noise in a report (Lambda runs a newer Node);
  // it fires at the first client construction, which ensureTable already does.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const scratchDir = mkdtempSync(join(tmpdir(), 'merchant-analytics-bench-'));
  const config = { ...localConfig(), tableName: 'merchant-analytics-bench', eventBusName: 'merchant-analytics-bench' };
  const dynamo = await startEmbeddedDynamo();
  let eventBridge: EventBridgeSink | undefined;
  try {
    await ensureTable(dynamo.endpoint, config.tableName);
    eventBridge = await startEventBridgeSink({ file: join(scratchDir, 'events.ndjson'), region: config.region });
    useLocalServices(config, { dynamodb: dynamo.endpoint, eventbridge: eventBridge.endpoint });

    // Handler and service modules build their SDK clients at import, so they may only be
    // imported once the environment points at the local services.
    const handlers = await importHandlers(options.cases, options.projectRoot);
    const { mintApiKey } = await import('../shared/auth/api-key-service');
    const { apiKey } = await mintApiKey({ pixelId: BENCH_PIXEL_ID, scopes: scopesNeeded(options.cases), name: 'bench' });
    const credentials = { apiKey, pixelId: BENCH_PIXEL_ID };

    // Every case warms up before any is measured: JIT, connection pools and stored state (a GET
    // reads the document the PUT warm-up wrote) are then the same whatever the case order.
    for (const latencyCase of options.cases) {
      for (let i = 0; i < options.warmupRequests; i++) await invoke(latencyCase, handlers, credentials);
    }
    const samples = new Map<string, number[]>();
    for (const latencyCase of options.cases) {
      const durations: number[] = [];
      for (let i = 0; i < options.requests; i++) durations.push(await invoke(latencyCase, handlers, credentials));
      samples.set(latencyCase.id, durations);
    }
    return samples;
  } finally {
    await eventBridge?.close();
    await dynamo.close();
    rmSync(scratchDir, { recursive: true, force: true });
  }
}

async function importHandlers(cases: readonly LatencyCase[], projectRoot: string): Promise<Map<string, LambdaHandler>> {
  const handlers = new Map<string, LambdaHandler>();
  for (const routeId of new Set(cases.map((latencyCase) => latencyCase.routeId))) {
    const modulePath = pathToFileURL(resolve(projectRoot, routes[routeId].handler)).href;
    const module = (await import(modulePath)) as { handler?: unknown };
    if (typeof module.handler !== 'function') throw new Error(`${routes[routeId].handler} does not export a handler`);
    handlers.set(routeId, module.handler as LambdaHandler);
  }
  return handlers;
}

function scopesNeeded(cases: readonly LatencyCase[]): Scope[] {
  const scopes = cases.map((latencyCase) => routes[latencyCase.routeId].scope as Scope | null);
  return [...new Set(scopes.filter((scope): scope is Scope => scope !== null))];
}

/** One invocation, timed from handing over the event to the result; building the event is API Gateway's work. */
async function invoke(latencyCase: LatencyCase, handlers: ReadonlyMap<string, LambdaHandler>, credentials: Credentials): Promise<number> {
  const handler = handlers.get(latencyCase.routeId) as LambdaHandler;
  const requestId = randomBytes(12).toString('base64url');
  const event = eventFor(latencyCase, credentials, requestId);
  const context = lambdaContext(latencyCase.routeId, requestId);
  const started = performance.now();
  const result = await handler(event, context);
  const elapsedMs = performance.now() - started;
  // A benchmark of error responses measures the wrong code path, so any non-200 ends the run.
  const { statusCode, body } = (result ?? {}) as { statusCode?: number; body?: string };
  if (statusCode !== 200) {
    throw new Error(`${latencyCase.id} answered ${statusCode ?? 'no status'}: ${(body ?? '').slice(0, 500)}`);
  }
  return elapsedMs;
}

function eventFor(latencyCase: LatencyCase, credentials: Credentials, requestId: string): APIGatewayProxyEventV2 {
  const route = routes[latencyCase.routeId];
  const pathParameters = latencyCase.pathParameters ?? {};
  const path = route.path.replace(/\{([^}]+)\}/g, (_segment, name: string) => {
    const value = pathParameters[name];
    if (value === undefined) throw new Error(`${latencyCase.id}: no value for path parameter '${name}'`);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(latencyCase.query ?? {}).toString();
  const body = latencyCase.body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(latencyCase.body), 'utf8');
  const rawHeaders = [
    'Host', DOMAIN_NAME,
    'User-Agent', 'merchant-analytics-bench',
    'Accept', 'application/json',
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
