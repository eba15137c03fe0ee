import { ensureTable } from '../lib/local/dynamodb';
import { localConfig, useLocalServices } from '../lib/local/local-config';
import { generateDemoAds, generateDemoFxRates } from '../lib/local/demo-ads';
import type { AdImport } from '../shared/schemas/ad-import';
import type { AdListingCase, AdListingDataset, QueryAdsResponse } from './ad-listing-cases';
import { startBenchStore, type StoreMode } from './bench-store';
import { importHandlers, invoke, scopesNeeded, type Credentials } from './invoke';
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
  /** Peak RSS of the process that ran the section (handlers, SDK, generator; and the store when in-process). */
  peakRssBytes: number;
  cases: Record<string, AdListingCaseResult>;
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
}

const ROUTE_ID = 'queryAds' as const;

/**
 * Upserts in flight while importing. The generator runs on this thread between them, so with 2 in
 * flight the next batch is generated while the store writes the previous one. 1, 2 and 4 were
 * measured on 2,000 ads and differed by less than the run-to-run noise of a shared 2-core machine
 * (11.5-17.9 s, no order); 2 is kept for the overlap, more would only queue up in the store.
 */
const IMPORT_CONCURRENCY = 2;

/**
 * The ad-listing section: generates the dataset into a fresh in-memory store, then times
 * POST /db-mgmt/api/query-ads through the whole handler, as the latency section does.
 *
 * Must run in a process of its own (see section-process.ts): the handlers' SDK clients fix their
 * endpoint at first use, so they cannot follow this section to a store other than the one the
 * latency section used.
 */
export async function measureAdListing(options: {
  dataset: AdListingDataset;
  cases: readonly AdListingCase[];
  projectRoot: string;
  storeMode: StoreMode;
  log: (line: string) => void;
}): Promise<AdListingResult> {
  const { dataset, log } = options;
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const config = { ...localConfig(), tableName: 'merchant-analytics-bench-ads', eventBusName: 'merchant-analytics-bench' };
  const store = await startBenchStore(options.storeMode);
  try {
    await ensureTable(store.endpoint, config.tableName);
    // Query-ads publishes no events, so no EventBridge stand-in is needed.
    useLocalServices(config, { dynamodb: store.endpoint });

    log(
      `Generating and importing ${dataset.ads.toLocaleString('en-US')} ads x ${dataset.days} days of hourly metrics ` +
        `(dynalite in memory, ${options.storeMode}, ${dataset.importBatch} ads per upsert, ${IMPORT_CONCURRENCY} in flight)...`,
    );
    const imported = await importDataset(dataset);
    log(
      `  ${imported.hourlyRows.toLocaleString('en-US')} hourly rows and ${imported.fxDates} exchange-rate dates in ` +
        `${imported.importSeconds.toFixed(1)} s (${imported.generateSeconds.toFixed(1)} s of it generating)`,
    );

    const handlers = await importHandlers([ROUTE_ID], options.projectRoot);
    const { mintApiKey } = await import('../shared/auth/api-key-service');
    const { BENCH_RATE_LIMITS } = await import('./bench-keys');
    const { apiKey } = await mintApiKey({ pixelId: dataset.pixelId, scopes: scopesNeeded([ROUTE_ID]), name: 'bench', ...BENCH_RATE_LIMITS });
    const credentials: Credentials = { apiKey, pixelId: dataset.pixelId };

    const cases: Record<string, AdListingCaseResult> = {};
    for (const listingCase of options.cases) {
      log(`  ${listingCase.id}: ${listingCase.warmupRequests} warm-up + ${listingCase.requests} requests...`);
      cases[listingCase.id] = await measureCase(listingCase, dataset, handlers, credentials);
    }
    return {
      dataset: {
        ads: dataset.ads,
        days: dataset.days,
        end: dataset.end.toISOString(),
        seed: dataset.seed,
        hourlyRows: imported.hourlyRows,
        fxDates: imported.fxDates,
        importSeconds: Math.round(imported.importSeconds * 10) / 10,
        generateSeconds: Math.round(imported.generateSeconds * 10) / 10,
      },
      store: { mode: store.mode, peakRssBytes: store.peakRssBytes() ?? null },
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      cases,
    };
  } finally {
    await store.close();
  }
}

/** Streams the generator into the store in batches, as an import of a large file would. */
async function importDataset(dataset: AdListingDataset) {
  // Imported only now: the repositories build their SDK client at import, after useLocalServices.
  const { upsertAds } = await import('../shared/store/ad-repository');
  const { upsertFxRates } = await import('../shared/store/fx-repository');
  const started = performance.now();
  const fxRates = generateDemoFxRates(dataset);
  await upsertFxRates(dataset.pixelId, fxRates);

  let hourlyRows = 0;
  let generateMs = 0;
  const inFlight = new Set<Promise<void>>();
  const store = async (batch: AdImport[]) => {
    const write = upsertAds(dataset.pixelId, batch).finally(() => inFlight.delete(write));
    inFlight.add(write);
    // A failed upsert must end the run, not hide behind later batches.
    if (inFlight.size >= IMPORT_CONCURRENCY) await Promise.race(inFlight);
  };
  const ads = generateDemoAds(dataset);
  let batch: AdImport[] = [];
  for (;;) {
    const generating = performance.now();
    const next = ads.next();
    generateMs += performance.now() - generating;
    if (next.done) break;
    hourlyRows += next.value.hourly?.length ?? 0;
    batch.push(next.value);
    if (batch.length === dataset.importBatch) {
      await store(batch);
      batch = [];
    }
  }
  if (batch.length > 0) await store(batch);
  await Promise.all(inFlight);
  return { hourlyRows, fxDates: fxRates.length, importSeconds: (performance.now() - started) / 1000, generateSeconds: generateMs / 1000 };
}

async function measureCase(
  listingCase: AdListingCase,
  dataset: AdListingDataset,
  handlers: Awaited<ReturnType<typeof importHandlers>>,
  credentials: Credentials,
): Promise<AdListingCaseResult> {
  const request = { routeId: ROUTE_ID, body: { pixelId: dataset.pixelId, ...listingCase.body(dataset) } };
  const label = `adListing.${listingCase.id}`;

  const first = await invoke(label, request, handlers, credentials);
  const response = JSON.parse(first.body) as QueryAdsResponse;
  try {
    listingCase.check(response, dataset);
  } catch (error) {
    throw new Error(`${label}: ${(error as Error).message}`, { cause: error });
  }
  for (let i = 1; i < listingCase.warmupRequests; i++) await invoke(label, request, handlers, credentials);

  const durations: number[] = [];
  for (let i = 0; i < listingCase.requests; i++) {
    const { elapsedMs, body } = await invoke(label, request, handlers, credentials);
    // Same data, same question: any other answer means the requests did not all do the same work.
    if (body.length !== first.body.length) throw new Error(`${label}: response ${i} is ${body.length} characters, the first was ${first.body.length}`);
    durations.push(elapsedMs);
  }
  const summary = summarize(durations);
  return {
    description: listingCase.description,
    requests: summary.count,
    p50Ms: roundMs(summary.median),
    p99Ms: roundMs(summary.p99),
    meanMs: roundMs(summary.mean),
    maxMs: roundMs(summary.max),
    rowsPerResponse: response.rows.length,
    responseBytes: Buffer.byteLength(first.body, 'utf8'),
    wireBytes: first.wireBytes,
  };
}
