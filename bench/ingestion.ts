import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { spawnLocalServer } from '../lib/local/spawned-server';
import { mapWithConcurrency } from '../shared/map-with-concurrency';
import { formatMs, formatTable } from './report';
import { roundMs, summarize } from './stats';

/**
 * Event ingestion through `npm start`'s program, as a client meets it: HTTP on loopback, the
 * local API Gateway stand-in, the handler, and dynalite persisting on disk. Throughput is
 * events/s with 100-event batches over a few concurrent keep-alive connections; latency is one
 * batch at a time. Both the recommended path (every event carries an eventId, so each claims an
 * idempotency marker) and the server-assigned-id path are measured, since the markers dominate.
 */
const BATCH_SIZE = 100;
const CONCURRENCY = 4;
const PIXEL_ID = 'px_bench_ingest';
const PATH = '/tr/api/events';

export interface IngestionThroughput {
  batches: number;
  events: number;
  concurrency: number;
  seconds: number;
  eventsPerSecond: number;
}

export interface IngestionResult {
  batchSize: number;
  throughput: { withEventIds: IngestionThroughput; withoutEventIds: IngestionThroughput };
  /** One 100-event batch (with eventIds) at a time, request sent to response read. */
  batchLatency: { requests: number; p50Ms: number; p99Ms: number; meanMs: number };
}

export async function measureIngestion(options: { projectRoot: string; log: (line: string) => void }): Promise<IngestionResult> {
  // Smaller runs for working on the benchmark itself; results.json records the counts used.
  const throughputBatches = positiveInteger('BENCH_INGESTION_BATCHES', 100);
  const latencyRequests = positiveInteger('BENCH_INGESTION_LATENCY_REQUESTS', 200);
  options.log(
    `Measuring event ingestion through the local server: ${throughputBatches} batches of ${BATCH_SIZE} per variant ` +
      `over ${CONCURRENCY} connections, then ${latencyRequests} batches one at a time...`,
  );
  const server = await startServer(options.projectRoot);
  try {
    const apiKey = await mintKey(options.projectRoot, server.env);
    const send = sender(server.url, apiKey);
    const batches = new BatchFactory();

    for (let i = 0; i < 20; i++) await send(batches.next(i % 2 === 0));
    const throughput = async (withEventIds: boolean): Promise<IngestionThroughput> => {
      const bodies = Array.from({ length: throughputBatches }, () => batches.next(withEventIds));
      const started = performance.now();
      await mapWithConcurrency(bodies, CONCURRENCY, send);
      const seconds = (performance.now() - started) / 1000;
      const events = throughputBatches * BATCH_SIZE;
      return { batches: throughputBatches, events, concurrency: CONCURRENCY, seconds: roundMs(seconds), eventsPerSecond: Math.round(events / seconds) };
    };
    const withEventIds = await throughput(true);
    const withoutEventIds = await throughput(false);

    const durations: number[] = [];
    for (let i = 0; i < latencyRequests; i++) durations.push(await send(batches.next(true)));
    const latency = summarize(durations);
    return {
      batchSize: BATCH_SIZE,
      throughput: { withEventIds, withoutEventIds },
      batchLatency: { requests: latency.count, p50Ms: roundMs(latency.median), p99Ms: roundMs(latency.p99), meanMs: roundMs(latency.mean) },
    };
  } finally {
    await server.stop();
  }
}

export function printIngestion(result: IngestionResult, log: (line?: string) => void): void {
  log();
  log(`Event ingestion: POST ${PATH} through the local server (loopback HTTP, dynalite on disk), ${result.batchSize}-event batches`);
  log(
    formatTable(
      ['variant', 'batches', 'connections', 'seconds', 'events/s'],
      Object.entries(result.throughput).map(([variant, run]) => [
        variant,
        run.batches.toLocaleString('en-US'),
        String(run.concurrency),
        run.seconds.toFixed(1),
        run.eventsPerSecond.toLocaleString('en-US'),
      ]),
    ),
  );
  const { requests, p50Ms, p99Ms, meanMs } = result.batchLatency;
  log(`One batch with eventIds, ${requests.toLocaleString('en-US')} sequential requests: p50 ${formatMs(p50Ms)}, p99 ${formatMs(p99Ms)}, mean ${formatMs(meanMs)}`);
}

/** A storefront's mix: mostly page views, a few carts and checkouts, 5 purchases a batch, some identified. */
class BatchFactory {
  private batch = 0;

  next(withEventIds: boolean): string {
    const batch = this.batch++;
    const events = Array.from({ length: BATCH_SIZE }, (_, i) => {
      const id = `b${batch}-e${i}`;
      const kind = i % 20;
      const name = kind < 12 ? 'page_view' : kind < 16 ? 'view_item' : kind < 18 ? 'add_to_cart' : kind < 19 ? 'begin_checkout' : 'purchase';
      return {
        name,
        ...(withEventIds ? { eventId: id } : {}),
        ...(i % 4 === 0 ? { user: { emails: [`shopper${i}@example.com`], userIds: [`cust_${i}`] } } : {}),
        ipAddress: '203.0.113.7',
        page: { url: `https://shop.example/products/${i}?utm_source=meta&utm_medium=paid&utm_campaign=spring`, referrer: 'https://www.facebook.com/', title: 'Product' },
        click: { fbc: 'fb.1.1554763741205.AbCdEfGhIjKlMnOp', fbp: 'fb.1.1596403881668.1116446470' },
        data:
          name === 'purchase'
            ? { orderId: `o-${id}`, value: 59.9, currency: 'USD', items: [{ id: 'SKU1', name: 'Tee', price: 29.95, quantity: 2 }], sourceName: 'web', tags: ['bench'], paymentGateway: 'stripe' }
            : { value: 29.95, currency: 'USD', items: [{ id: 'SKU1', name: 'Tee', price: 29.95, quantity: 1 }] },
      };
    });
    return JSON.stringify({ events });
  }
}

function sender(url: string, apiKey: string): (body: string) => Promise<number> {
  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey, 'x-pixel-id': PIXEL_ID };
  return async (body) => {
    const started = performance.now();
    const response = await fetch(url + PATH, { method: 'POST', headers, body });
    const text = await response.text();
    const elapsed = performance.now() - started;
    // A benchmark of error responses measures the wrong code path, so any non-200 ends the run.
    if (response.status !== 200) throw new Error(`ingestion answered ${response.status}: ${text.slice(0, 500)}`);
    return elapsed;
  };
}

interface Server {
  url: string;
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

async function startServer(projectRoot: string): Promise<Server> {
  const server = await spawnLocalServer({ projectRoot });
  return {
    url: server.url,
    env: server.env,
    stop: async () => {
      await server.stop();
      rmSync(server.dataDir, { recursive: true, force: true });
    },
  };
}

async function mintKey(projectRoot: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'bin/keys.ts', 'create', '--pixel', PIXEL_ID, '--scopes', 'events:write', '--name', 'bench', '--json'],
    { cwd: projectRoot, env },
  );
  return (JSON.parse(stdout.trim()) as { apiKey: string }).apiKey;
}

function positiveInteger(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}
