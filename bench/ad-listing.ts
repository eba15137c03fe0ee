import { ensureTable } from '../lib/local/dynamodb';
import { localConfig, useLocalServices } from '../lib/local/local-config';
import { generateDemoAds, generateDemoFxRates } from '../lib/local/demo-ads';
import type { AdImport } from '../shared/schemas/ad-import';
import type { AdListingCase, AdListingDataset, QueryAdsResponse } from './ad-listing-cases';
import { startBenchStore, type StoreMode } from './bench-store';
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { esbuildOptions } from '../lib/bundling';
import { functionNodeOptions } from '../lib/function-defaults';
import { routes, type RouteDefinition } from '../lib/routes';
import type { ServerMessage, ServerReply } from './ad-listing-server';
import { deadlineOverride, eventFor, readResult, scopesNeeded, type BenchRequest, type Credentials, type HandlerResult, type Invocation } from './invoke';
import { roundMs, summarize } from './stats';

export interface AdListingResult {
  dataset: {
    ads: number;
    days: number;
    end: string;
    seed: number;
    hourlyRows: number;
    fxDates: number;
    /** Wall time of generating and storing everything. */
    importSeconds: number;
    /** The part of it spent in the generator. */
    generateSeconds: number;
  };
  store: { mode: StoreMode; peakRssBytes: number | null };
  /**
   * Peak RSS of the process that ran the section: the generator, the import, the client's decoding
   * (and the store when in-process); not the serving process's, which each case reports.
   */
  peakRssBytes: number;
  cases: Record<string, AdListingCaseResult>;
  /** Cases that could not be measured, with why (a 503 past the function's deadline, say). */
  failed: Record<string, string>;
  /**
   * The floor of `page500x10x45x45`: the same page's numbers computed by DuckDB directly over a
   * copy of the pixel's ad_hours Parquet files (no API, no live-file listing, no read rule, no
   * JSON), and the case's p50 over it.
   */
  floor?: { description: string; requests: number; p50Ms: number; p99Ms: number; values: number; ratio: number };
}

export interface AdListingCaseResult {
  description: string;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  rowsPerResponse: number;
  responseBytes: number;
  /** The body as it leaves the function: gzipped (base64) when large. */
  wireBytes: number;
  /**
   * Peak RSS (the kernel's high-water mark) of the process that served the case and nothing else:
   * a fresh Node process that loaded the handler and answered the warm-up and measured requests.
   */
  peakRssBytes: number;
}

const ROUTE_ID = 'queryAds' as const;

/**
 * The ad-listing section, in two steps. `prepareAdListing` generates the dataset into a fresh
 * in-memory store (and bundles the serving process); the function it resolves to times
 * POST /db-mgmt/api/query-ads through the whole handler, as the latency section does, then stops
 * the store. `npm run bench` prepares while the soak runs and measures after it (bench/run.ts).
 *
 * Must run in a process of its own (see section-process.ts): the handlers' SDK clients fix their
 * endpoint at first use, so they cannot follow this section to a store other than the one the
 * latency section used.
 */
export async function prepareAdListing(options: {
  dataset: AdListingDataset;
  cases: readonly AdListingCase[];
  projectRoot: string;
  storeMode: StoreMode;
  log: (line: string) => void;
}): Promise<() => Promise<AdListingResult>> {
  const { dataset, log } = options;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const serverDir = mkdtempSync(join(tmpdir(), 'merchant-analytics-bench-ads-server-'));
  // The analytics store is a directory of this run's own, never the developer's data directory.
  const config = { ...localConfig(), tableName: 'merchant-analytics-bench-ads', eventBusName: 'merchant-analytics-bench', analyticsDir: join(serverDir, 'analytics') };
  const store = await startBenchStore(options.storeMode);
  const close = async () => {
    await store.close();
    rmSync(serverDir, { recursive: true, force: true });
  };
  const prepareData = async () => {
    const serverBundle = await bundleServer(serverDir, options.projectRoot);
    await ensureTable(store.endpoint, config.tableName);
    // Query-ads publishes no events, so no EventBridge stand-in is needed.
    useLocalServices(config, { dynamodb: store.endpoint });

    log(
      `Generating and importing ${dataset.ads.toLocaleString('en-US')} ads x ${dataset.days} days of hourly metrics ` +
        `(one import into the analytics store, live files in dynalite in memory, ${options.storeMode})...`,
    );
    const { updateAccount } = await import('../shared/account/account-service');
    for (const pixelId of [dataset.pixelId, dataset.history.pixelId]) {
      await updateAccount({ pixelId, patch: { timezone: dataset.reportingZone }, apiKeyPk: 'bench', requestTime: new Date() });
    }
    const imported = await importDataset(dataset);
    // The floor's own copy of the pixel's hours, read without the store.
    const floorDir = join(serverDir, 'floor');
    cpSync(join(config.analyticsDir, 'ad_hours', `pixel=${dataset.pixelId}`), floorDir, { recursive: true });
    log(
      `  ${imported.hourlyRows.toLocaleString('en-US')} hourly rows and ${imported.fxDates} exchange-rate dates in ` +
        `${imported.importSeconds.toFixed(1)} s (${imported.generateSeconds.toFixed(1)} s of it generating)`,
    );
    const history = { ...dataset, pixelId: dataset.history.pixelId, ads: dataset.history.ads, days: dataset.history.days };
    log(`Importing the history pixel: ${history.ads.toLocaleString('en-US')} ads x ${history.days} days...`);
    const importedHistory = await importDataset(history);
    log(`  ${importedHistory.hourlyRows.toLocaleString('en-US')} hourly rows in ${importedHistory.importSeconds.toFixed(1)} s`);

    const { mintApiKey } = await import('../shared/auth/api-key-service');
    const { BENCH_RATE_LIMITS } = await import('./bench-keys');
    const credentialsOf = async (pixelId: string): Promise<Credentials> => ({
      apiKey: (await mintApiKey({ pixelId, scopes: scopesNeeded([ROUTE_ID]), name: 'bench', ...BENCH_RATE_LIMITS })).apiKey,
      pixelId,
    });
    const credentials = { main: await credentialsOf(dataset.pixelId), history: await credentialsOf(dataset.history.pixelId) };
    return { serverBundle, imported, importedHistory, credentials, floorDir };
  };
  const { serverBundle, imported, importedHistory, credentials, floorDir } = await prepareData().catch(async (error: unknown) => {
    await close();
    throw error;
  });

  return async () => {
    try {
      const cases: Record<string, AdListingCaseResult> = {};
      const failed: Record<string, string> = {};
      let floor: AdListingResult['floor'];
      for (const listingCase of options.cases) {
        log(`  ${listingCase.id}: ${listingCase.warmupRequests} warm-up + ${listingCase.requests} requests...`);
        const pixel = listingCase.pixel ?? 'main';
        try {
          const measured = await measureCase(listingCase, dataset, credentials[pixel], serverBundle);
          cases[listingCase.id] = measured.result;
          if (listingCase.id === FLOOR_CASE) {
            log(`  ${FLOOR_CASE} floor: the same page computed by DuckDB over a copy of the Parquet files...`);
            const body = listingCase.body(dataset) as { dateRange: { start: string; end: string }; compareDateRange: { start: string; end: string }; timezone: string; currency: string };
            const timing = await measureFloor(floorDir, measured.page, body, dataset);
            floor = { ...timing, ratio: Math.round((measured.result.p50Ms / timing.p50Ms) * 100) / 100 };
            log(`    floor p50 ${timing.p50Ms} ms (${timing.values.toLocaleString('en-US')} values), the case ${floor.ratio}x it`);
          }
        } catch (error) {
          // One case past the deadline on a loaded machine must not cost the other figures.
          failed[listingCase.id] = (error as Error).message.slice(0, 300);
          log(`    not measured: ${failed[listingCase.id]}`);
        }
      }
      return {
        dataset: {
          ads: dataset.ads,
          days: dataset.days,
          end: dataset.end.toISOString(),
          seed: dataset.seed,
          hourlyRows: imported.hourlyRows + importedHistory.hourlyRows,
          fxDates: imported.fxDates,
          importSeconds: Math.round(imported.importSeconds * 10) / 10,
          generateSeconds: Math.round(imported.generateSeconds * 10) / 10,
        },
        store: { mode: store.mode, peakRssBytes: store.peakRssBytes() ?? null },
        peakRssBytes: process.resourceUsage().maxRSS * 1024,
        cases,
        failed,
        ...(floor ? { floor } : {}),
      };
    } finally {
      await close();
    }
  };
}

/** Streams the generator into one import, as `npm run import-ads` reads a large file: staged in constant memory, stored at the end. */
async function importDataset(dataset: AdListingDataset) {
  // Imported only now: the store modules build their SDK client at import, after useLocalServices.
  const { AdFactsImport } = await import('../shared/analytics/store/ad-facts');
  const started = performance.now();
  const writer = new AdFactsImport(dataset.pixelId);
  const fxRates = generateDemoFxRates(dataset);
  await writer.addFxRates(fxRates);
  let hourlyRows = 0;
  let generateMs = 0;
  const ads = generateDemoAds(dataset);
  for (;;) {
    const generating = performance.now();
    const next = ads.next();
    generateMs += performance.now() - generating;
    if (next.done) break;
    hourlyRows += next.value.hourly?.length ?? 0;
    await writer.addAd(next.value as AdImport);
  }
  await writer.finish();
  return { hourlyRows, fxDates: fxRates.length, importSeconds: (performance.now() - started) / 1000, generateSeconds: generateMs / 1000 };
}

/** The case whose floor is measured. */
const FLOOR_CASE = 'page500x10x45x45';
const FLOOR_REQUESTS = 10;

/**
 * The floor of a page: its numbers (10 measures per ad and local day of both ranges, money in the
 * request's currency at each hour's UTC-date rate) computed by one DuckDB statement straight over
 * a copy of the pixel's ad_hours files, read into this process column by column. No API, no live
 * files, no read rule (the bench imports each hour once), no JSON: what the page costs at the least.
 */
async function measureFloor(
  floorDir: string,
  page: ReadonlyArray<{ platform: string; adId: string; currency: string }>,
  body: { dateRange: { start: string; end: string }; compareDateRange: { start: string; end: string }; timezone: string; currency: string },
  dataset: AdListingDataset,
) {
  const { withDuckDB, sqlString } = await import('../shared/analytics/store/duckdb');
  const { adKeyOf } = await import('../shared/analytics/store/ad-facts');
  const { resolveDateRange } = await import('../shared/time/date-range');
  const primary = resolveDateRange(body.dateRange, body.timezone);
  const compare = resolveDateRange(body.compareDateRange, body.timezone);
  const rates = generateDemoFxRates(dataset).flatMap((entry) => Object.entries(entry.rates).map(([currency, rate]) => `('${entry.date}'::DATE, '${currency}', ${rate})`));
  const pageRows = page.map((ad, ord) => `(${ord}, ${adKeyOf(ad as never).toString()}, '${ad.platform}', '${ad.currency}')`);
  const ts = (ms: number) => `make_timestamp(${ms * 1000})`;
  const sql = `
    WITH page(ord, ad_key, platform, currency) AS (VALUES ${pageRows.join(', ')}),
    rates(date, currency, rate) AS (VALUES ${rates.join(', ')}),
    hours AS (
      SELECT * FROM read_parquet(${sqlString(join(floorDir, '*', '*.parquet'))}, hive_partitioning = false)
      WHERE ad_key IN (SELECT ad_key FROM page)
        AND ((hour >= ${ts(primary.start)} AND hour < ${ts(primary.end)}) OR (hour >= ${ts(compare.start)} AND hour < ${ts(compare.end)}))),
    days AS (
      SELECT p.ord, p.platform, h.hour >= ${ts(primary.start)} AS is_primary, (h.hour AT TIME ZONE 'UTC' AT TIME ZONE ${sqlString(body.timezone)})::DATE AS day,
             sum(h.spend / f.rate * t.rate) AS spend, sum(h.impressions)::DOUBLE AS impressions, sum(h.clicks)::DOUBLE AS clicks,
             sum(h.conversions)::DOUBLE AS conversions, sum(h.conversion_value / f.rate * t.rate) AS conversion_value
      FROM hours h JOIN page p USING (ad_key)
      JOIN rates f ON f.currency = p.currency AND f.date = h.hour::DATE
      JOIN rates t ON t.currency = ${sqlString(body.currency)} AND t.date = h.hour::DATE
      GROUP BY ALL)
    SELECT ord, is_primary, day, round(spend, 6), impressions, clicks, round(clicks / nullif(impressions, 0) * 100, 6), round(spend / nullif(clicks, 0), 6),
           round(spend / nullif(impressions, 0) * 1000, 6), conversions, round(conversion_value, 6), round(conversion_value / nullif(spend, 0), 6),
           CASE WHEN platform = 'meta' THEN round(spend, 6) ELSE 0 END
    FROM days ORDER BY ord, is_primary DESC, day`;
  const durations: number[] = [];
  let values = 0;
  await withDuckDB(async (connection) => {
    for (let i = 0; i < FLOOR_REQUESTS + 2; i++) {
      const started = performance.now();
      const result = await connection.run(sql);
      let read = 0;
      for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
        for (let c = 0; c < chunk.columnCount; c++) {
          const vector = chunk.getColumnVector(c);
          for (let r = 0; r < chunk.rowCount; r++) vector.getItem(r);
        }
        read += chunk.rowCount * 10;
      }
      // The first two warm the engine and the page cache, as the case's warm-up requests do.
      if (i >= 2) durations.push(performance.now() - started);
      values = read;
    }
  });
  const summary = summarize(durations);
  return {
    description: `the ${FLOOR_CASE} page\u2019s values computed by one DuckDB statement over a copy of the pixel\u2019s ad_hours Parquet files`,
    requests: summary.count,
    p50Ms: roundMs(summary.median),
    p99Ms: roundMs(summary.p99),
    values,
  };
}

async function measureCase(
  listingCase: AdListingCase,
  dataset: AdListingDataset,
  credentials: Credentials,
  serverBundle: string,
): Promise<{ result: AdListingCaseResult; page: Array<{ platform: string; adId: string; currency: string }> }> {
  const request: BenchRequest = { routeId: ROUTE_ID, body: { pixelId: credentials.pixelId, ...listingCase.body(dataset) } };
  const label = `adListing.${listingCase.id}`;
  const server = await ServingProcess.start(serverBundle);
  try {
    const invoke = (): Promise<Invocation> => server.invoke(label, request, credentials);
    const first = await invoke();
    const response = JSON.parse(first.body) as QueryAdsResponse;
    try {
      listingCase.check(response, dataset);
    } catch (error) {
      throw new Error(`${label}: ${(error as Error).message}`, { cause: error });
    }
    for (let i = 1; i < listingCase.warmupRequests; i++) await invoke();

    const durations: number[] = [];
    for (let i = 0; i < listingCase.requests; i++) {
      const { elapsedMs, body } = await invoke();
      // Same data, same question: any other answer means the requests did not all do the same work.
      if (body.length !== first.body.length) throw new Error(`${label}: response ${i} is ${body.length} characters, the first was ${first.body.length}`);
      durations.push(elapsedMs);
    }
    const summary = summarize(durations);
    const page = response.rows.map((row) => ({ platform: row.basicDetails.platform, adId: row.basicDetails.adId, currency: row.basicDetails.nativeCurrency }));
    const result = {
      description: listingCase.description,
      requests: summary.count,
      p50Ms: roundMs(summary.median),
      p99Ms: roundMs(summary.p99),
      meanMs: roundMs(summary.mean),
      maxMs: roundMs(summary.max),
      rowsPerResponse: response.rows.length,
      responseBytes: Buffer.byteLength(first.body, 'utf8'),
      wireBytes: first.wireBytes,
      peakRssBytes: await server.peakRssBytes(),
    };
    return { result, page };
  } finally {
    server.close();
  }
}

/**
 * Bundles the serving process (ad-listing-server.ts: the query-ads handler and a small driver)
 * with the deployed esbuild settings, laid out like a Lambda asset (CommonJS, source map beside,
 * the analytics engine's packages reachable beside it).
 */
async function bundleServer(dir: string, projectRoot: string): Promise<string> {
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
  // The analytics engine is not bundled (a native module): it is found beside the bundle, as the
  // function's asset ships it.
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'));
  const file = join(dir, 'index.js');
  const result = await build(esbuildOptions(fileURLToPath(new URL('./ad-listing-server.ts', import.meta.url)), file));
  if (result.errors.length > 0) throw new Error(`esbuild failed for the ad-listing server: ${result.errors.map((error) => error.text).join('; ')}`);
  return file;
}

/**
 * A case's serving process, one request at a time: a plain `node` with the function's NODE_OPTIONS
 * (source maps and the route's heap sizes, lib/function-defaults.ts, as the stack sets them), this
 * process's environment (the store endpoint and table) and no loader. The events are built here
 * and the answers decoded here, outside the timed span and outside the server's memory.
 */
class ServingProcess {
  private pending: ((reply: ServerReply) => void) | undefined;
  private exitError: Error | undefined;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (reply: ServerReply) => {
      const resolve = this.pending;
      this.pending = undefined;
      resolve?.(reply);
    });
    child.once('exit', (code, signal) => {
      this.exitError = new Error(`the serving process exited (${signal ?? code})`);
      this.pending?.({ error: this.exitError.message });
      this.pending = undefined;
    });
  }

  static async start(bundle: string): Promise<ServingProcess> {
    // The function's own NODE_OPTIONS, from the source the stack deploys (source maps, and the
    // heap sizes its route sets); BENCH_AD_LISTING_NODE_OPTIONS replaces them to compare settings.
    const env = { ...process.env, NODE_OPTIONS: process.env.BENCH_AD_LISTING_NODE_OPTIONS ?? functionNodeOptions((routes.queryAds as RouteDefinition).heap) };
    // BENCH_AD_LISTING_CPU_PROF=<dir>: each serving process writes its V8 CPU profile there.
    const profileDir = process.env.BENCH_AD_LISTING_CPU_PROF;
    const execArgv = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const child = fork(bundle, [], { execArgv, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const server = new ServingProcess(child);
    // The first message says the handler is loaded.
    await server.ask(undefined);
    return server;
  }

  private ask(message: ServerMessage | undefined): Promise<ServerReply> {
    if (this.exitError) return Promise.reject(this.exitError);
    return new Promise((resolve) => {
      this.pending = resolve;
      if (message) this.child.send(message);
    });
  }

  async invoke(label: string, request: BenchRequest, credentials: Credentials): Promise<Invocation> {
    const requestId = randomBytes(12).toString('base64url');
    const event = eventFor(label, request, credentials, requestId);
    const timeoutMs = request.timeoutMs ?? deadlineOverride();
    const reply = await this.ask({ type: 'invoke', event, requestId, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
    if ('error' in reply) throw new Error(`${label}: ${reply.error}`);
    const { elapsedMs, result } = reply as { elapsedMs: number; result: HandlerResult };
    return readResult(label, elapsedMs, result);
  }

  async peakRssBytes(): Promise<number> {
    const reply = await this.ask({ type: 'peak' });
    if (!('peakRssBytes' in reply)) throw new Error('the serving process did not report its peak RSS');
    return reply.peakRssBytes;
  }

  close(): void {
    if (this.child.connected) this.child.disconnect();
  }
}
