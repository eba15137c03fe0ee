import { spawn } from 'node:child_process';
import { toApiGatewayEvent } from '../lib/local/api-gateway-event';
import { routes, type RouteId } from '../lib/routes';
import type { BuiltBundle } from './bundle-size';
import { BARE_BUNDLE_ID, CHILD_ENV } from './init-time';

/**
 * `middleware.<routeId>`: what the shared request pipeline costs per warm request, against the
 * bare bundle. Each deployed bundle is loaded in a fresh `node` (the Lambda environment of
 * init-time.ts) and invoked again and again with the same API Gateway event: a request without
 * credentials, which the pipeline answers 401 before any store call. What is timed is therefore
 * the work every request pays (logging context, metrics, telemetry, request id, response
 * compression check, header normalisation, the credential check, the error responder), free of
 * store latency; the bare handler answers the same event with a fixed body.
 */
const CHILD_SCRIPT = `
const { writeSync } = require('node:fs');
const [file, eventJson, warmup, requests] = process.argv.slice(1);
const { handler } = require(file);
const event = JSON.parse(eventJson);
const context = () => ({
  callbackWaitsForEmptyEventLoop: false, functionName: 'bench', functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench', memoryLimitInMB: '1024',
  awsRequestId: 'bench', logGroupName: '/bench', logStreamName: 'bench',
  getRemainingTimeInMillis: () => 10000, done() {}, fail() {}, succeed() {},
});
(async () => {
  for (let i = 0; i < Number(warmup); i++) await handler(structuredClone(event), context());
  const samples = [];
  let status;
  for (let i = 0; i < Number(requests); i++) {
    const copy = structuredClone(event);
    const ctx = context();
    const started = performance.now();
    const result = await handler(copy, ctx);
    samples.push(performance.now() - started);
    status = result && result.statusCode;
  }
  writeSync(3, JSON.stringify({ samples, status }));
})().catch((error) => { process.stderr.write(String(error && error.stack || error)); process.exit(2); });
`;

/** The request every route and the bare bundle receive: the route's method and path, no credentials. */
function eventFor(routeId: RouteId | typeof BARE_BUNDLE_ID): unknown {
  const route = routeId === BARE_BUNDLE_ID ? routes.getOrderSettings : routes[routeId];
  const pathParameters: Record<string, string> = {};
  const path = route.path.replace(/\{([^}]+)\}/g, (_segment, name: string) => (pathParameters[name] = 'bench'));
  return toApiGatewayEvent(
    { method: route.method, url: path, rawHeaders: ['Host', 'bench.local', 'Accept', 'application/json'], body: Buffer.alloc(0), sourceIp: '127.0.0.1', protocol: 'HTTP/1.1' },
    { method: route.method, path: route.path, pathParameters },
    { requestId: 'bench', now: new Date(), domainName: 'bench.local' },
  );
}

async function samplesOnce(bundle: BuiltBundle, warmup: number, requests: number): Promise<number[]> {
  const event = JSON.stringify(eventFor(bundle.routeId as RouteId));
  return new Promise((resolve, reject) => {
    // Logs and EMF metrics go to stdout as on Lambda; they are dropped here, results come on fd 3.
    const child = spawn(process.execPath, ['-e', CHILD_SCRIPT, bundle.file, event, String(warmup), String(requests)], {
      env: CHILD_ENV,
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdio[3]?.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 || !out) return reject(new Error(`middleware bench of ${bundle.routeId} failed (${code}): ${err.trim().slice(0, 500)}`));
      const { samples, status } = JSON.parse(out) as { samples: number[]; status: number };
      const expected = bundle.routeId === BARE_BUNDLE_ID ? 200 : 401;
      if (status !== expected) return reject(new Error(`${bundle.routeId} answered ${status}, expected ${expected}`));
      resolve(samples);
    });
  });
}

export interface MiddlewareCase {
  p50Us: number;
  bareP50Us: number;
}

/**
 * Rounds go across every bundle (the bare one included) in turn, so the machine's drift lands on
 * all of them alike; each round is a fresh process with its own warm-up.
 */
export async function measureMiddlewareCases(
  bundles: readonly BuiltBundle[],
  options: { rounds: number; warmup: number; requests: number },
): Promise<Record<string, MiddlewareCase>> {
  const samples = new Map<string, number[]>(bundles.map((bundle) => [bundle.routeId, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const bundle of bundles) samples.get(bundle.routeId)?.push(...(await samplesOnce(bundle, options.warmup, options.requests)));
  }
  const p50Us = (values: readonly number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return Math.round((sorted[Math.max(0, Math.ceil(sorted.length / 2) - 1)] as number) * 10_000) / 10;
  };
  const bare = samples.get(BARE_BUNDLE_ID);
  if (!bare?.length) throw new Error('middleware samples hold no run of the bare bundle');
  const bareP50Us = p50Us(bare);
  const cases: Record<string, MiddlewareCase> = {};
  for (const [id, values] of samples) if (id !== BARE_BUNDLE_ID) cases[`middleware.${id}`] = { p50Us: p50Us(values), bareP50Us };
  return cases;
}
