import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureTable, startEmbeddedDynamo } from '../lib/local/dynamodb';
import { startEventBridgeSink, type EventBridgeSink } from '../lib/local/eventbridge-sink';
import { localConfig, useLocalServices } from '../lib/local/local-config';
import { importHandlers, invoke, scopesNeeded } from './invoke';
import type { LatencyCase } from './latency-cases';

const BENCH_PIXEL_ID = 'px_bench';
/** Writes between two outbox drains: deployed, the consumer publishes within moments, so a write rarely carries more than a few pending events. */
const OUTBOX_DRAIN_EVERY = 10;

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

    const routeIds = options.cases.map((latencyCase) => latencyCase.routeId);
    const handlers = await importHandlers(routeIds, options.projectRoot);
    const { mintApiKey } = await import('../shared/auth/api-key-service');
    const { BENCH_RATE_LIMITS } = await import('./bench-keys');
    const { drainAll } = await import('../shared/pipeline/drain');
    const { apiKey } = await mintApiKey({ pixelId: BENCH_PIXEL_ID, scopes: scopesNeeded(routeIds), name: 'bench', ...BENCH_RATE_LIMITS });
    const credentials = { apiKey, pixelId: BENCH_PIXEL_ID };

    // Every case warms up before any is measured: JIT, connection pools and stored state (a GET
    // reads the document the PUT warm-up wrote) are then the same whatever the case order.
    // Deployed, the pipeline consumer publishes each write's accountUpdated from the outbox within
    // moments; a write refuses to queue more than MAX_OUTBOX unpublished. So a writing case drains
    // between requests, as that consumer would, outside the timed call.
    const drainNow = (i: number) => (i % OUTBOX_DRAIN_EVERY === OUTBOX_DRAIN_EVERY - 1 ? drainAll() : undefined);
    for (const latencyCase of options.cases) {
      for (let i = 0; i < options.warmupRequests; i++) {
        await invoke(latencyCase.id, latencyCase, handlers, credentials);
        await drainNow(i);
      }
    }
    const samples = new Map<string, number[]>();
    for (const latencyCase of options.cases) {
      const durations: number[] = [];
      for (let i = 0; i < options.requests; i++) {
        durations.push((await invoke(latencyCase.id, latencyCase, handlers, credentials)).elapsedMs);
        await drainNow(i);
      }
      samples.set(latencyCase.id, durations);
    }
    return samples;
  } finally {
    await eventBridge?.close();
    await dynamo.close();
    rmSync(scratchDir, { recursive: true, force: true });
  }
}
