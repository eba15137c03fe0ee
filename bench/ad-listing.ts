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
  /** Cases that could not be measured, with why (a 503 past the function's deadline, say). */
  failed: Record<string, string>;
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
   * Highest RSS of the section process sampled during the case's requests (every 10 ms, after a
   * full garbage collection before the case): the handler's working set on top of the runtime.
   */
  peakRssBytes: number;
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
    // The reporting zone is an account setting; set first, so the import rolls its days up.
    const { updateAccount } = await import('../shared/account/account-service');
    for (const pixelId of [dataset.pixelId, dataset.history.pixelId]) {
      await updateAccount({ pixelId, patch: { timezone: dataset.reportingZone }, apiKeyPk: 'bench', requestTime: new Date() });
    }
    const imported = await importDataset(dataset);
    log(
      `  ${imported.hourlyRows.toLocaleString('en-US')} hourly rows and ${imported.fxDates} exchange-rate dates in ` +
        `${imported.importSeconds.toFixed(1)} s (${imported.generateSeconds.toFixed(1)} s of it generating)`,
    );
    const history = { ...dataset, pixelId: dataset.history.pixelId, ads: dataset.history.ads, days: dataset.history.days };
    log(`Importing the history pixel: ${history.ads.toLocaleString('en-US')} ads x ${history.days} days...`);
    const importedHistory = await importDataset(history);
    log(`  ${importedHistory.hourlyRows.toLocaleString('en-US')} hourly rows in ${importedHistory.importSeconds.toFixed(1)} s`);

    const handlers = await importHandlers([ROUTE_ID], options.projectRoot);
    const { mintApiKey } = await import('../shared/auth/api-key-service');
    const { BENCH_RATE_LIMITS } = await import('./bench-keys');
    const credentialsOf = async (pixelId: string): Promise<Credentials> => ({
      apiKey: (await mintApiKey({ pixelId, scopes: scopesNeeded([ROUTE_ID]), name: 'bench', ...BENCH_RATE_LIMITS })).apiKey,
      pixelId,
    });
    const credentials = { main: await credentialsOf(dataset.pixelId), history: await credentialsOf(dataset.history.pixelId) };

    const cases: Record<string, AdListingCaseResult> = {};
    const failed: Record<string, string> = {};
    for (const listingCase of options.cases) {
      log(`  ${listingCase.id}: ${listingCase.warmupRequests} warm-up + ${listingCase.requests} requests...`);
      const pixel = listingCase.pixel ?? 'main';
      if (listingCase.readsHours) await setRollupsFlag(credentials[pixel].pixelId, false);
      try {
        cases[listingCase.id] = await measureCase(listingCase, dataset, handlers, credentials[pixel]);
      } catch (error) {
        // One case past the deadline on a loaded machine must not cost the other figures.
        failed[listingCase.id] = (error as Error).message.slice(0, 300);
        log(`    not measured: ${failed[listingCase.id]}`);
      } finally {
        if (listingCase.readsHours) await setRollupsFlag(credentials[pixel].pixelId, true);
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
    };
  } finally {
    await store.close();
  }
}

/**
 * Sets the directory's rollups flag, with a version bump so that cached directories see it: off,
 * the pixel reads as one whose data predates rollups, and every request reads the hours.
 */
async function setRollupsFlag(pixelId: string, on: boolean): Promise<void> {
  const { bumpCollectionVersion } = await import('../shared/store/collection-version');
  await bumpCollectionVersion(`PIXEL#${pixelId}#ADS`, new Date(), { rollups: on });
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
  const request = {
    routeId: ROUTE_ID,
    body: { pixelId: credentials.pixelId, ...listingCase.body(dataset) },
    // The old path is measured for comparison, not held to the function's 10 s: on a loaded
    // machine it can take longer, and a 503 would leave nothing to compare.
    ...(listingCase.readsHours ? { timeoutMs: 120_000 } : {}),
  };
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
  (globalThis as { gc?: () => void }).gc?.();
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 10);
  try {
    for (let i = 0; i < listingCase.requests; i++) {
      const { elapsedMs, body } = await invoke(label, request, handlers, credentials);
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
      // Same data, same question: any other answer means the requests did not all do the same work.
      if (body.length !== first.body.length) throw new Error(`${label}: response ${i} is ${body.length} characters, the first was ${first.body.length}`);
      durations.push(elapsedMs);
    }
  } finally {
    clearInterval(sampler);
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
    peakRssBytes: peakRss,
  };
}
