import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateQuery, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { LOCAL_CREDENTIALS } from '../lib/local/dynamodb';
import { prng } from '../lib/local/demo-ads';
import { freePort } from '../lib/local/spawned-server';
import { mapWithConcurrency } from '../shared/map-with-concurrency';
import { pendingPartition, pendingShardOf } from '../shared/store/pending-index';
import { cpuSecondsOf, startBenchStore, type BenchStore } from './bench-store';
import { formatMs } from './report';
import { roundMs, summarize } from './stats';
import { benchRateLimitArgs } from './bench-keys';
import { mergeSectionIntoResults, resultsFilePath } from './results-file';

/**
 * Event ingestion as a client meets it, with the store in a process of its own (as DynamoDB is in
 * AWS): HTTP on loopback, the local API Gateway stand-in, the handler appending to the log, and
 * the drain projecting it. Every event carries an eventId and 10 % of each batch repeats events of
 * the batch before (a client retrying), so deduplication is part of what is measured.
 *
 * - `ingest.accept`: the accept path alone (the drain off, as the consumer runs in Lambdas of its
 *   own in AWS): events/s with 100-event batches over a few keep-alive connections, and the
 *   p50/p99 of one batch's round trip under that load.
 * - `ingest.project`: a steady offered load with the drain on, end to end: events/s from the first
 *   acceptance to the last projection, and the lag of each log entry (projectedAt - acceptedAt),
 *   with every registered read model. A run whose drain cannot catch up within 90 s of the load's
 *   end is still reported (`caughtUp: false`, with the server's last error): its events/s counts
 *   what was projected by then, and each entry still pending counts with the lag it had at that
 *   moment, a lower bound.
 * - `ingest.projectCore`: the same with the read models off (events, dedup index, orders): what the
 *   pipeline itself costs, apart from the read models plugged into it.
 * Each reports the CPU seconds the server and store processes used, and the load average: on a
 * shared machine the wall-clock figures move with other work, the CPU seconds much less.
 */
const BATCH_SIZE = 100;
const DUPLICATE_SHARE = 0.1;
const ACCEPT_CONCURRENCY = 8;
const PIXEL_ID = 'px_bench_ingest';
const PATH = '/tr/api/events';
const TABLE = 'merchant-analytics-local';

/** CPU seconds each process used during a measurement, and the machine's 1-minute load average at its end. */
export interface CpuUse {
  serverSeconds: number | null;
  storeSeconds: number | null;
  loadAverage: number;
}

export interface ProjectionResult {
  offeredEventsPerSec: number;
  /** What the server took: below the offered rate when it fell behind with 32 requests open. */
  acceptedEventsPerSec: number;
  seconds: number;
  events: number;
  /** Deliveries of an eventId already sent (they are projected, and stored once). */
  duplicates: number;
  eventsPerSec: number;
  lagP50Ms: number;
  lagP99Ms: number;
  lagMaxMs: number;
  /** false: the drain had not caught up when the case gave up waiting; the figures are bounds (see `ingest.project`). */
  caughtUp: boolean;
  /** Entries still pending then, and the server's last error. */
  unprojectedEntries: number;
  lastError?: string;
  /** Whether the registered read models ran (false: the core stores only, events, dedup index and orders). */
  readModels: boolean;
  /** Batches the server answered 5xx (overloaded) and the client sent again. */
  retries: number;
  cpu: CpuUse;
}

export interface IngestionResult {
  batchSize: number;
  duplicateShare: number;
  accept: { batches: number; events: number; concurrency: number; seconds: number; eventsPerSec: number; batchP50Ms: number; batchP99Ms: number; retries: number; cpu: CpuUse };
  /** End to end with every registered read model, or why it could not be measured at all. */
  project: ProjectionResult | { failed: string; readModels: true };
  /** End to end with the core stores only (BENCH_READ_MODELS=0 in the server): what the pipeline itself costs. */
  projectCore: ProjectionResult;
}

export async function measureIngestion(options: { projectRoot: string; log: (line: string) => void }): Promise<IngestionResult> {
  const acceptBatches = positiveInteger('BENCH_INGESTION_BATCHES', 400);
  const offered = positiveInteger('BENCH_PROJECT_RATE', 6_000);
  const seconds = positiveInteger('BENCH_PROJECT_SECONDS', 20);
  options.log(`Measuring event accept: ${acceptBatches} batches of ${BATCH_SIZE} over ${ACCEPT_CONCURRENCY} connections (store in its own process)...`);
  const accept = await withServer(options.projectRoot, { drain: false, readModels: false }, async ({ send, cpu, counts }) => {
    const batches = new BatchFactory();
    for (let i = 0; i < 20; i++) await send(batches.next());
    const bodies = Array.from({ length: acceptBatches }, () => batches.next());
    const cpuBefore = cpu();
    const started = performance.now();
    const durations = await mapWithConcurrency(bodies, ACCEPT_CONCURRENCY, send);
    const elapsed = (performance.now() - started) / 1000;
    const cpuUse = cpuSince(cpuBefore, cpu());
    const latency = summarize(durations);
    const events = acceptBatches * BATCH_SIZE;
    return {
      batches: acceptBatches,
      events,
      concurrency: ACCEPT_CONCURRENCY,
      seconds: roundMs(elapsed),
      eventsPerSec: Math.round(events / elapsed),
      batchP50Ms: roundMs(latency.median),
      batchP99Ms: roundMs(latency.p99),
      retries: counts.retries,
      cpu: cpuUse,
    };
  });

  const measure = (readModels: boolean) => {
    options.log(`Measuring projection end to end: ${offered.toLocaleString('en-US')} events/s offered for ${seconds} s, the drain on, read models ${readModels ? 'on' : 'off'}...`);
    return measureProjection(options.projectRoot, { offered, seconds, readModels });
  };
  let project: IngestionResult['project'];
  try {
    project = await measure(true);
  } catch (error) {
    // A read model that cannot keep up (or fails) is a result to report, not a reason to lose the rest of the run.
    project = { failed: (error as Error).message, readModels: true };
  }
  const projectCore = await measure(false);
  return { batchSize: BATCH_SIZE, duplicateShare: DUPLICATE_SHARE, accept, project, projectCore };
}

/** Requests open at once in the projection cases. */
const MAX_IN_FLIGHT = 32;

/**
 * How long the drain may take to catch up once the offered load stops, before the case is reported
 * as failed: the core case gets longer, since a shared machine can slow it that much.
 */
const CATCH_UP_MS = { readModels: 90_000, core: 180_000 };

function measureProjection(projectRoot: string, options: { offered: number; seconds: number; readModels: boolean }): Promise<ProjectionResult> {
  return withServer(projectRoot, { drain: true, readModels: options.readModels }, async ({ send, store, cpu, lastError, counts }) => {
    const batches = new BatchFactory();
    const cpuBefore = cpu();
    const intervalMs = (1000 * BATCH_SIZE) / options.offered;
    const total = Math.round((options.seconds * 1000) / intervalMs);
    const inFlight: Array<Promise<unknown>> = [];
    // A batch that fails for good stops the load; caught here so no rejection goes unhandled meanwhile.
    let failure: unknown;
    const started = performance.now();
    let open = 0;
    let slotFreed: () => void = () => undefined;
    for (let i = 0; i < total && failure === undefined; i++) {
      const due = started + i * intervalMs;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      // At most MAX_IN_FLIGHT requests open, as a client fleet's connection pools allow: a server
      // that falls behind sees the load it can take, not an ever-growing pile of connections.
      while (open >= MAX_IN_FLIGHT) await new Promise<void>((resolve) => (slotFreed = resolve));
      open++;
      inFlight.push(
        send(batches.next())
          .catch((error: unknown) => (failure ??= error))
          .finally(() => {
            open--;
            slotFreed();
          }),
      );
    }
    await Promise.all(inFlight);
    const sendingSeconds = (performance.now() - started) / 1000;
    if (failure !== undefined) throw failure;
    const { entries, unprojected, givenUpAt } = await projectedEntries(store, total, options.readModels ? CATCH_UP_MS.readModels : CATCH_UP_MS.core);
    const cpuUse = cpuSince(cpuBefore, cpu());
    if (entries.length === 0) throw new Error(`nothing was projected; the server's last error: ${lastError() ?? 'none'}`);
    const first = Math.min(...entries.map((entry) => entry.acceptedAt), ...unprojected);
    const last = Math.max(...entries.map((entry) => entry.projectedAt));
    // An entry still pending when the case gave up counts with the lag it had then: a lower bound.
    const lags = summarize([...entries.map((entry) => entry.projectedAt - entry.acceptedAt), ...unprojected.map((acceptedAt) => givenUpAt - acceptedAt)]);
    const events = entries.reduce((sum, entry) => sum + entry.count, 0);
    return {
      offeredEventsPerSec: options.offered,
      acceptedEventsPerSec: Math.round((total * BATCH_SIZE) / sendingSeconds),
      seconds: options.seconds,
      events,
      duplicates: batches.duplicates,
      eventsPerSec: Math.round(events / ((last - first) / 1000)),
      lagP50Ms: roundMs(lags.median),
      lagP99Ms: roundMs(lags.p99),
      lagMaxMs: roundMs(lags.max),
      caughtUp: unprojected.length === 0,
      unprojectedEntries: unprojected.length,
      ...(unprojected.length > 0 ? { lastError: lastError() ?? 'none' } : {}),
      readModels: options.readModels,
      retries: counts.retries,
      cpu: cpuUse,
    };
  });
}

export function printIngestion(result: IngestionResult, log: (line?: string) => void): void {
  const { accept, project, projectCore } = result;
  log();
  log(`Event ingestion: POST ${PATH}, ${result.batchSize}-event batches with eventIds, ${result.duplicateShare * 100} % repeated; the store in its own process`);
  log(
    `  ingest.accept: ${accept.eventsPerSec.toLocaleString('en-US')} events/s (${accept.batches} batches over ${accept.concurrency} connections, ${accept.seconds.toFixed(1)} s); ` +
      `one batch p50 ${formatMs(accept.batchP50Ms)}, p99 ${formatMs(accept.batchP99Ms)}; ${accept.retries} retried after a 5xx; ${formatCpu(accept.cpu, accept.seconds)}`,
  );
  log('failed' in project ? `  ingest.project (read models on): not measured: ${project.failed}` : formatProjection('ingest.project (read models on)', project));
  log(formatProjection('ingest.projectCore (events, dedup index, orders)', projectCore));
}

function formatProjection(name: string, project: ProjectionResult): string {
  const behind = project.caughtUp ? '' : ` NOT CAUGHT UP: ${project.unprojectedEntries} entries still pending when the case gave up (figures are bounds; the server's last error: ${project.lastError});`;
  return (
    `  ${name}:${behind} ${project.eventsPerSec.toLocaleString('en-US')} events/s projected end to end at ${project.offeredEventsPerSec.toLocaleString('en-US')} offered ` +
    `(${project.acceptedEventsPerSec.toLocaleString('en-US')} accepted) for ${project.seconds} s ` +
    `(${project.events.toLocaleString('en-US')} events, ${project.duplicates.toLocaleString('en-US')} of them repeats; ${project.retries} batches retried after a 5xx); ` +
    `lag p50 ${formatMs(project.lagP50Ms)}, p99 ${formatMs(project.lagP99Ms)}, max ${formatMs(project.lagMaxMs)}; ${formatCpu(project.cpu)}`
  );
}

/**
 * The figures `results.json` compares across runs, by stable case id: `ingest.accept`
 * `{ eventsPerSec, batchP50Ms, batchP99Ms }`, `ingest.project` and `ingest.projectCore`
 * `{ eventsPerSec, lagP50Ms, lagP99Ms }`. `ingest.project` is the pipeline as deployed, every read
 * model on; a run of it that measured nothing at all (the server failed outright) is 0 events/s,
 * with the lags left out.
 */
export function ingestionCases({ accept, project, projectCore }: IngestionResult): Record<string, Record<string, number>> {
  const projection = (p: ProjectionResult) => ({ eventsPerSec: p.eventsPerSec, lagP50Ms: p.lagP50Ms, lagP99Ms: p.lagP99Ms });
  return {
    'ingest.accept': { eventsPerSec: accept.eventsPerSec, batchP50Ms: accept.batchP50Ms, batchP99Ms: accept.batchP99Ms },
    'ingest.project': 'failed' in project ? { eventsPerSec: 0 } : projection(project),
    'ingest.projectCore': projection(projectCore),
  };
}

const formatCpu = (cpu: CpuUse, seconds?: number) =>
  `CPU: server ${cpu.serverSeconds?.toFixed(1) ?? '?'} s, store ${cpu.storeSeconds?.toFixed(1) ?? '?'} s` +
  (seconds === undefined ? '' : ` in ${seconds.toFixed(1)} s`) +
  `, load average ${cpu.loadAverage.toFixed(1)}`;

function cpuSince(before: { server?: number; store?: number }, after: { server?: number; store?: number }): CpuUse {
  const delta = (a?: number, b?: number) => (a === undefined || b === undefined ? null : Math.round((b - a) * 100) / 100);
  return { serverSeconds: delta(before.server, after.server), storeSeconds: delta(before.store, after.store), loadAverage: Math.round(loadavg()[0]! * 10) / 10 };
}

/**
 * A storefront's traffic, seeded so every run sends the same events. A batch is the events of a
 * few visitors' sessions, 90 new events and 10 repeating the batch before (a client retrying).
 * A session is one browser's visit: its own `anonymousId` and `click.fbp`, a landing page that
 * carries the visit's marketing signal (a Meta or Google ad click with its ad-id URL parameters,
 * an email link, an organic search referrer, or none: direct), then product and cart pages without
 * one, and in some sessions a purchase, which carries the buyer's email. Most visitors are new;
 * `RETURNING_SHARE` are returning customers from a pool of `CUSTOMER_POOL`, signed in (email and
 * user id on every event of the session), on the browser they used before or on a new one.
 * Identities, orders and touchpoints are then spread over many small persons as in a real shop,
 * not glued into one (a shared identifier on every event makes one person of the whole run).
 */
const RETURNING_SHARE = 0.25;
const CUSTOMER_POOL = 2_000;
/** A returning customer is on a browser of theirs seen before in this share of sessions. */
const SAME_BROWSER_SHARE = 0.5;
const PURCHASE_SHARE = { new: 0.05, returning: 0.15 };
/** Landing signals: Meta ad, Google ad, email, organic search; the rest is direct. */
const LANDING = { meta: 0.3, google: 0.2, email: 0.1, search: 0.15 };

export class BatchFactory {
  private batch = 0;
  private previous: object[] = [];
  // Seeded, so every run and every worktree sends the same traffic.
  private readonly random = prng(20_260_310);
  private visitors = 0;
  private orders = 0;
  /** Browsers each pool customer has used, by customer index. */
  private readonly browsers = new Map<number, Array<{ anonymousId: string; fbp: string }>>();
  /** Events sent that repeat an eventId sent before: 10 % of every batch after the first. */
  duplicates = 0;

  next(): string {
    const batch = this.batch++;
    const repeats = this.previous.slice(0, Math.round(BATCH_SIZE * DUPLICATE_SHARE));
    this.duplicates += repeats.length;
    const fresh: object[] = [];
    const wanted = BATCH_SIZE - repeats.length;
    while (fresh.length < wanted) {
      for (const event of this.session()) {
        if (fresh.length === wanted) break;
        fresh.push({ ...event, eventId: `b${batch}-e${fresh.length}` });
      }
    }
    this.previous = fresh;
    return JSON.stringify({ events: [...fresh, ...repeats] });
  }

  /** One visit's events, in order (without eventIds). */
  private session(): object[] {
    const random = this.random;
    const visitor = this.visitors++;
    const returning = random() < RETURNING_SHARE;
    const customer = Math.floor(random() * CUSTOMER_POOL);
    let browser = { anonymousId: `anon-${visitor}`, fbp: `fb.1.1700000000000.${1_000_000 + visitor}` };
    if (returning) {
      const known = this.browsers.get(customer) ?? [];
      if (known.length > 0 && random() < SAME_BROWSER_SHARE) browser = known[Math.floor(random() * known.length)]!;
      else this.browsers.set(customer, [...known, browser]);
    }
    const user = returning ? { emails: [`customer${customer}@example.com`], userIds: [`cust_${customer}`] } : undefined;
    const signal = random();
    const campaign = Math.floor(random() * 5);
    const ad = `campaign_id=c${campaign}&adset_id=s${campaign}${Math.floor(random() * 3)}&ad_id=a${campaign}${Math.floor(random() * 9)}`;
    let landing: { url: string; referrer?: string; fbc?: string };
    if (signal < LANDING.meta) landing = { url: `?utm_source=facebook&utm_medium=paid&utm_campaign=spring${campaign}&fbclid=IwAR${visitor}&${ad}`, referrer: 'https://www.facebook.com/', fbc: `fb.1.1700000000000.IwAR${visitor}` };
    else if (signal < LANDING.meta + LANDING.google) landing = { url: `?gclid=Cj0K${visitor}&utm_source=google&utm_medium=cpc&${ad}` };
    else if (signal < LANDING.meta + LANDING.google + LANDING.email) landing = { url: `?utm_source=klaviyo&utm_medium=email&utm_campaign=newsletter${campaign}` };
    else if (signal < LANDING.meta + LANDING.google + LANDING.email + LANDING.search) landing = { url: '', referrer: 'https://www.google.com/' };
    else landing = { url: '' };
    const buys = random() < (returning ? PURCHASE_SHARE.returning : PURCHASE_SHARE.new);
    const pages = 1 + Math.floor(random() * 6);
    const names = ['page_view', ...Array.from({ length: pages }, () => (random() < 0.5 ? 'view_item' : 'page_view')), ...(buys ? ['add_to_cart', 'begin_checkout', 'purchase'] : random() < 0.2 ? ['add_to_cart'] : [])];
    const buyer = user ?? { emails: [`buyer${visitor}@example.com`] };
    return names.map((name, i) => {
      const product = Math.floor(random() * 50);
      const first = i === 0;
      return {
        name,
        user: { anonymousId: browser.anonymousId, ...(name === 'purchase' ? buyer : user ?? {}) },
        ipAddress: '203.0.113.7',
        page: first
          ? { url: `https://shop.example/products/${product}${landing.url}`, ...(landing.referrer ? { referrer: landing.referrer } : {}), title: 'Product' }
          : { url: `https://shop.example/products/${product}`, referrer: 'https://shop.example/', title: 'Product' },
        click: { fbp: browser.fbp, ...(first && landing.fbc ? { fbc: landing.fbc } : {}) },
        data:
          name === 'purchase'
            ? { orderId: `o-${this.orders++}`, value: 59.9, currency: 'USD', items: [{ id: 'SKU1', name: 'Tee', price: 29.95, quantity: 2 }], sourceName: 'web', tags: ['bench'], paymentGateway: 'stripe' }
            : { value: 29.95, currency: 'USD', items: [{ id: `SKU${product}`, name: 'Tee', price: 29.95, quantity: 1 }] },
      };
    });
  }
}

interface BenchServer {
  send(body: string): Promise<number>;
  store: DynamoDBDocumentClient;
  /** CPU seconds used so far by the server process and the store process. */
  cpu(): { server?: number; store?: number };
  /** The server's latest error line, if it logged one. */
  lastError(): string | undefined;
  /** Batches sent again after a 5xx. */
  counts: { retries: number };
}

const STDERR_TAIL_CHARS = 16_000;

/**
 * The last log record of a process's error output, on one line: from the last line that starts a
 * record (a JSON object's `{` or any text at the line's start, not an indented or closing line),
 * to the end, whitespace collapsed; undefined when there is none.
 */
export function lastLogRecord(output: string): string | undefined {
  const lines = output.replace(/\s+$/, '').split('\n');
  let start = lines.length - 1;
  while (start > 0 && !/^[^\s}\]]/.test(lines[start]!)) start--;
  const record = lines.slice(start).join(' ').replace(/\s+/g, ' ').trim();
  return record.length > 0 ? record.slice(0, 1_000) : undefined;
}

/** A fresh store process and a server process on it; `work` runs against them, then both stop. */
async function withServer<T>(projectRoot: string, mode: { drain: boolean; readModels: boolean }, work: (server: BenchServer) => Promise<T>): Promise<T> {
  const store: BenchStore = await startBenchStore('child-process');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-ingest-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), DATA_DIR: dataDir, BENCH_DYNAMODB_ENDPOINT: store.endpoint, BENCH_DRAIN: mode.drain ? '1' : '0', BENCH_READ_MODELS: mode.readModels ? '1' : '0', POWERTOOLS_LOG_LEVEL: 'ERROR' };
  for (const name of ['AWS_ENDPOINT_URL_DYNAMODB', 'TABLE_NAME']) delete env[name];
  // BENCH_SERVER_CPU_PROF=<dir>: the server writes a V8 CPU profile there (node --cpu-prof), to see where its time goes.
  const profile = process.env.BENCH_SERVER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SERVER_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', 'bench/ingestion-server.ts'], { cwd: projectRoot, env, stdio: ['pipe', 'pipe', 'pipe'] });
  // The server's error log: a drain that keeps failing repeats its error each pass, so only the
  // latest record is kept, to say why a case failed. A record may span lines (a pretty-printed
  // JSON log), so the tail of the output is kept and cut at the last record's start.
  let stderrTail = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_CHARS);
  });
  const lastError = () => lastLogRecord(stderrTail);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const documents = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: store.endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS }));
  try {
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk;
        if (output.includes('listening on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`the ingestion server exited (${code}) before it listened: ${output}`)));
    });
    const storePort = new URL(store.endpoint).port;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'bin/keys.ts', 'create', '--pixel', PIXEL_ID, '--scopes', 'events:write', '--name', 'bench', '--json', ...benchRateLimitArgs],
      { cwd: projectRoot, env: { ...env, DYNAMODB_PORT: storePort } },
    );
    const counts = { retries: 0 };
    const apiKey = (JSON.parse(stdout.trim().split('\n').at(-1)!) as { apiKey: string }).apiKey;
    return await work({ send: sender(`http://127.0.0.1:${port}`, apiKey, counts), counts, store: documents, cpu: () => ({ server: cpuSecondsOf(child.pid), store: store.cpuSeconds() }), lastError });
  } finally {
    documents.destroy();
    child.stdin!.end();
    await exited;
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The log entries of the benchmark pixel once all `expected` of them are projected, as epoch ms;
 * or, `timeoutMs` on, those projected by then and the acceptance times of the others.
 *
 * While it waits it asks only whether the pixel's pending index still holds an entry (a Query of
 * one item), and reads the log once at the end. A wait that read every log entry each poll (as
 * this once did) made the store decode the whole log four times a second, about 5 MB a poll for
 * the 1,200 entries of a case, and slowed the very drain whose tail it was timing: the entries
 * projected after the load stops are the ones that set the lag's p99.
 */
async function projectedEntries(store: DynamoDBDocumentClient, expected: number, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const waiting = await anyPending(store);
    if (!waiting || Date.now() > deadline) {
      const { entries, unprojected } = await logEntries(store);
      const givenUpAt = Date.now();
      // Entries are all appended before the wait starts (every batch was answered 200), so an
      // empty pending index with fewer entries than sent is a fault of the benchmark, not a lag.
      if (unprojected.length === 0 && entries.length < expected) throw new Error(`the log holds ${entries.length} entries, ${expected} were accepted`);
      return { entries, unprojected, givenUpAt };
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Whether any entry of the benchmark pixel is still pending (one item read from its shard of the pending index). */
async function anyPending(store: DynamoDBDocumentClient): Promise<boolean> {
  const { Count = 0 } = await store.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: 'GSI2',
      KeyConditionExpression: 'GSI2PK = :pk',
      ExpressionAttributeValues: { ':pk': pendingPartition(pendingShardOf(PIXEL_ID)) },
      ProjectionExpression: 'GSI2PK',
      Limit: 1,
    }),
  );
  return Count > 0;
}

/** Every log entry of the benchmark pixel: when each projected one was accepted and projected, and when each pending one was accepted. */
async function logEntries(store: DynamoDBDocumentClient) {
  const entries: Array<{ acceptedAt: number; projectedAt: number; count: number }> = [];
  const unprojected: number[] = [];
  const pages = paginateQuery(
    { client: store },
    {
      TableName: TABLE,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': `PIXEL#${PIXEL_ID}#LOG` },
      ProjectionExpression: 'acceptedAt, projectedAt, #count',
      ExpressionAttributeNames: { '#count': 'count' },
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      if (typeof item.projectedAt !== 'string') unprojected.push(Date.parse(item.acceptedAt as string));
      else entries.push({ acceptedAt: Date.parse(item.acceptedAt as string), projectedAt: Date.parse(item.projectedAt as string), count: item.count as number });
    }
  }
  return { entries, unprojected };
}

/** How often a batch answered 5xx is sent again, as a client does (its eventIds make that safe). */
const MAX_ATTEMPTS = 5;

function sender(url: string, apiKey: string, counts: { retries: number }): (body: string) => Promise<number> {
  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey, 'x-pixel-id': PIXEL_ID };
  return async (body) => {
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      const response = await fetch(url + PATH, { method: 'POST', headers, body });
      const text = await response.text();
      if (response.status === 200) return performance.now() - started;
      // A 5xx is retried as a client would (a 503 asks for it; a 500 is a write whose outcome the
      // server could not learn, safe to repeat with eventIds); a 4xx is a benchmark of the wrong code path, and ends the run.
      if (response.status < 500 || attempt === MAX_ATTEMPTS) throw new Error(`ingestion answered ${response.status}: ${text.slice(0, 500)}`);
      counts.retries++;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  };
}

function positiveInteger(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** `npm run bench:ingestion`: this section alone, merged into the results file as `ingestion` and its cases. */
if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const projectRoot = fileURLToPath(new URL('..', import.meta.url));
  const log = (line = '') => process.stdout.write(`${line}\n`);
  const result = await measureIngestion({ projectRoot, log });
  printIngestion(result, log);
  const resultsFile = resultsFilePath(projectRoot);
  mergeSectionIntoResults(resultsFile, {
    command: 'bench:ingestion',
    owns: (id) => id.startsWith('ingest.'),
    cases: ingestionCases(result),
    failed: 'failed' in result.project ? { 'ingest.project': result.project.failed } : {},
    details: { ingestion: result },
  });
  log(`Wrote ${resultsFile}`);
}
