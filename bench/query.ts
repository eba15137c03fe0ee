import { ensureTable } from '../lib/local/dynamodb';
import { localConfig, useLocalServices } from '../lib/local/local-config';
import { DEMO_DEFAULTS, generateDemoAds, generateDemoFxRates } from '../lib/local/demo-ads';
import { generateDemoDays } from '../lib/local/demo-orders';
import { orderUpdateFromImport } from '../shared/orders/order-updates';
import { toStoredEvent } from '../shared/tracking/stored-event';
import { startBenchStore, type StoreMode } from './bench-store';
import { importHandlers, invoke, scopesNeeded, type Credentials } from './invoke';
import { roundMs, summarize } from './stats';
import { cohortCases, COHORT_ROUTE_ID, writeCostInputs } from './query-cohort';

/**
 * The analytics query section: a pixel with 100,000 orders and about 1,000,000 events over 365
 * days, plus the demo ad set over the same year, then POST /db-mgmt/api/query through the whole
 * handler, and POST /db-mgmt/api/query-attribution on the same data (the generator gives each
 * order a journey of about 3 touchpoints: ad clicks with ad ids, searches, emails). The read-model
 * items are written directly with the projectors' own bulk builders (`writeInitialReadModels`,
 * `writeInitialJourneys`): feeding a year through ingestion would take most of the bench.
 */
export interface QueryBenchDataset {
  pixelId: string;
  days: number;
  end: Date;
  /** Scales orders and visits together; 1 is the published size. */
  scale: number;
}

export interface QueryCaseResult {
  description: string;
  p50Ms: number;
  p99Ms: number;
  n: number;
  jsonBytes: number;
}

export interface QueryBenchResult {
  dataset: { orders: number; events: number; ads: number; days: number; end: string; writeSeconds: number };
  cases: Record<string, QueryCaseResult>;
  /** Cases that could not be measured (a request over the function timeout), with the reason. */
  failed: Record<string, string>;
}

const ROUTE_ID = 'query' as const;
const ATTRIBUTION_ROUTE_ID = 'queryAttribution' as const;
/** 100,000 orders a year: 274 a day on average (the generator adds 20 % on weekends). */
const ORDERS_PER_DAY = 259;
/**
 * An order brings about 6 events (its own 4 and the earlier visits of its journey), 600,000 a
 * year; visits that do not buy (2.4 events each, 20 % more on weekends) bring the year to about
 * 1,000,000 events, the published size.
 */
const VISITS_PER_DAY = 430;

const FIVE_MEASURES = ['orders.orders', 'orders.net_revenue', 'orders.new_customers', 'events.page_views', 'core.mer'];

export const queryCases = [
  {
    id: 'query.day90x5Compare',
    description: '5 measures (orders, new customers, events, blended), day buckets over 90 days, compared with the 90 days before, New York time',
    body: { measures: FIVE_MEASURES, granularity: 'day', dateRange: { start: '2026-08-26', end: '2026-11-23' }, timezone: 'America/New_York' },
  },
  {
    id: 'query.day90x5BySource',
    description: '5 orders measures by orders.source_name, day buckets over 90 days with compare',
    body: {
      measures: ['orders.orders', 'orders.total_revenue', 'orders.net_revenue', 'orders.new_customers', 'orders.average_order_value'],
      dimensions: ['orders.source_name'],
      granularity: 'day',
      dateRange: { start: '2026-08-26', end: '2026-11-23' },
      timezone: 'America/New_York',
    },
  },
  {
    id: 'query.none365',
    description: 'the same 5 measures, granularity none over 365 days',
    body: { measures: FIVE_MEASURES, granularity: 'none', dateRange: { start: '2025-11-24', end: '2026-11-23' }, timezone: 'America/New_York' },
  },
] as const;

const NINETY_DAYS = { start: '2026-08-26', end: '2026-11-23' };
const ATTRIBUTION_MEASURES = ['attribution.orders', 'attribution.revenue', 'attribution.new_customer_orders'];
const ALL_MODELS = ['first_click', 'last_click', 'any_click', 'linear', 'time_decay', 'position_based'];

/** Attribution over 90 days, window 30: one model and all six, by source (with spend) and by ad id. */
export const attributionCases = [
  {
    id: 'attribution.source90',
    description: 'attribution by source over 90 days, window 30, last_click, orders, revenue, new customers, spend, ROAS',
    body: { dimension: 'source', attributionModel: 'last_click', attributionWindow: 30, measures: [...ATTRIBUTION_MEASURES, 'channel.spend', 'attribution.roas'], dateRange: NINETY_DAYS },
  },
  {
    id: 'attribution.source90AllModels',
    description: 'the same, all six models side by side',
    body: { dimension: 'source', attributionModel: ALL_MODELS, attributionWindow: 30, measures: [...ATTRIBUTION_MEASURES, 'channel.spend', 'attribution.roas'], dateRange: NINETY_DAYS },
  },
  {
    id: 'attribution.adId90',
    description: 'attribution by channel.ad_id over 90 days, window 30, last_click, with spend and ROAS',
    body: { dimension: 'channel.ad_id', attributionModel: 'last_click', attributionWindow: 30, measures: [...ATTRIBUTION_MEASURES, 'channel.spend', 'attribution.roas'], dateRange: NINETY_DAYS },
  },
  {
    id: 'attribution.adId90AllModels',
    description: 'the same by channel.ad_id, all six models side by side',
    body: { dimension: 'channel.ad_id', attributionModel: ALL_MODELS, attributionWindow: 30, measures: [...ATTRIBUTION_MEASURES, 'channel.spend', 'attribution.roas'], dateRange: NINETY_DAYS },
  },
] as const;

/**
 * The query section, in two steps: `prepareQuery` writes the dataset into a fresh in-memory store
 * and loads the handlers; the function it resolves to measures every case, then stops the store.
 * `npm run bench` prepares while the soak runs and measures after it (bench/run.ts).
 */
export async function prepareQuery(options: {
  dataset: QueryBenchDataset;
  projectRoot: string;
  storeMode: StoreMode;
  requests: number;
  log: (line: string) => void;
}): Promise<() => Promise<QueryBenchResult>> {
  const { dataset, log } = options;
  const config = { ...localConfig(), tableName: 'merchant-analytics-bench-query', eventBusName: 'merchant-analytics-bench' };
  const store = await startBenchStore(options.storeMode);
  const prepareData = async () => {
    await ensureTable(store.endpoint, config.tableName);
    useLocalServices(config, { dynamodb: store.endpoint });
    log(`Generating ${dataset.days} days of orders, events and ads (scale ${dataset.scale})...`);
    const written = await writeDataset(dataset, log, { journeys: selectedCases().some((queryCase) => queryCase.routeId === ATTRIBUTION_ROUTE_ID) });
    log(`  ${written.orders.toLocaleString('en-US')} orders, ${written.events.toLocaleString('en-US')} events, ${written.ads} ads in ${written.writeSeconds.toFixed(1)} s`);

    const handlers = await importHandlers([ROUTE_ID, COHORT_ROUTE_ID, ATTRIBUTION_ROUTE_ID], options.projectRoot);
    const { mintApiKey } = await import('../shared/auth/api-key-service');
    const { BENCH_RATE_LIMITS } = await import('./bench-keys');
    const { apiKey } = await mintApiKey({ pixelId: dataset.pixelId, scopes: scopesNeeded([ROUTE_ID, COHORT_ROUTE_ID, ATTRIBUTION_ROUTE_ID]), name: 'bench', ...BENCH_RATE_LIMITS });
    const credentials: Credentials = { apiKey, pixelId: dataset.pixelId };
    return { written, handlers, credentials };
  };
  const { written, handlers, credentials } = await prepareData().catch(async (error: unknown) => {
    await store.close();
    throw error;
  });

  return async () => {
    try {
      const cases: Record<string, QueryCaseResult> = {};
      const failed: Record<string, string> = {};
      for (const queryCase of selectedCases()) {
        log(`  ${queryCase.id}: 1 warm-up + ${options.requests} requests...`);
        try {
          const request = { routeId: queryCase.routeId, body: { pixelId: dataset.pixelId, ...queryCase.body } };
          const first = await invoke(queryCase.id, request, handlers, credentials);
          const detail = (JSON.parse(first.body) as { results: Array<{ measureDetails: Array<{ success: boolean; primarySum: number | null }> }> }).results[0]!.measureDetails;
          if (!detail.every((entry) => entry.success) || !(detail[0]!.primarySum! > 0)) throw new Error(`${queryCase.id}: the answer has no data`);
          const durations: number[] = [];
          for (let i = 0; i < options.requests; i++) durations.push((await invoke(queryCase.id, request, handlers, credentials)).elapsedMs);
          const summary = summarize(durations);
          cases[queryCase.id] = { description: queryCase.description, p50Ms: roundMs(summary.median), p99Ms: roundMs(summary.p99), n: summary.count, jsonBytes: Buffer.byteLength(first.body, 'utf8') };
        } catch (error) {
          // A case over the function's timeout is a result to report, not a reason to lose the others.
          failed[queryCase.id] = (error as Error).message.slice(0, 300);
          log(`  ${queryCase.id} failed: ${failed[queryCase.id]}`);
        }
      }
      return { dataset: { ...written, days: dataset.days, end: dataset.end.toISOString(), writeSeconds: Math.round(written.writeSeconds * 10) / 10 }, cases, failed };
    } finally {
      await store.close();
    }
  };
}

/**
 * The cases to run: all, or those whose id starts with one of the comma-separated prefixes in
 * BENCH_QUERY_CASES (`query.,cohort.` measures the query and cohort cases without the journeys'
 * write and the attribution cases, for working on one endpoint).
 */
function selectedCases() {
  const all = [
    ...queryCases.map((queryCase) => ({ ...queryCase, routeId: ROUTE_ID })),
    ...attributionCases.map((queryCase) => ({ ...queryCase, routeId: ATTRIBUTION_ROUTE_ID })),
    ...cohortCases,
  ];
  const prefixes = (process.env.BENCH_QUERY_CASES ?? '').split(',').filter((prefix) => prefix !== '');
  return prefixes.length === 0 ? all : all.filter((queryCase) => prefixes.some((prefix) => queryCase.id.startsWith(prefix)));
}

export async function writeDataset(dataset: QueryBenchDataset, log: (line: string) => void, options: { journeys?: boolean } = {}) {
  // Imported only now: the repositories build their SDK client at import, after useLocalServices.
  const { writeNewOrders } = await import('../shared/analytics/store/order-store');
  const { importSource } = await import('../shared/orders/import-orders');
  const { eventsTableProjector } = await import('../shared/analytics/store/events-table-projector');
  const { writeInitialJourneys } = await import('../shared/store/journey-repository');
  const { AdFactsImport } = await import('../shared/analytics/store/ad-facts');
  const { saveAccount } = await import('../shared/store/account-repository');
  const started = performance.now();
  // The merchant reports in New York time, the zone the cases ask in.
  await saveAccount(dataset.pixelId, { name: 'Bench merchant', timezone: 'America/New_York', currency: 'USD' }, undefined, dataset.end);
  const adOptions = { ...DEMO_DEFAULTS, days: dataset.days, end: dataset.end };
  // The ads and rates as one import, as `npm run import-ads` would store a file of them.
  const ads = new AdFactsImport(dataset.pixelId);
  await ads.addFxRates(generateDemoFxRates(adOptions));
  for (const ad of generateDemoAds(adOptions)) await ads.addAd(ad);
  await ads.finish();
  await writeCostInputs(dataset.pixelId, dataset.end);

  const days = generateDemoDays({
    days: dataset.days,
    end: dataset.end,
    seed: 20_261_123,
    ordersPerDay: ORDERS_PER_DAY * dataset.scale,
    visitsPerDay: VISITS_PER_DAY * dataset.scale,
    customers: Math.round(40_000 * dataset.scale) + 1,
  });
  const sources = [];
  let events = 0;
  // Journey items are per identifier, which spans days: kept and written whole at the end.
  const deliveries: Array<{ entryId: string; event: ReturnType<typeof toStoredEvent> }> = [];
  // A day's events are one log entry of the events table; the orders are written once at the end.
  for (const day of days) {
    for (const line of day.orders) sources.push(importSource(orderUpdateFromImport(line, dataset.end), dataset.end));
    const dayEvents = day.events.map((input, i) => toStoredEvent(input, { eventId: `bench-${day.date}-${i}`, eventIdSource: 'server', receivedAt: dataset.end }));
    const entryId = `00BENCH${day.date}`;
    for (const event of dayEvents) deliveries.push({ entryId, event });
    await eventsTableProjector.seedInitial!({ pixelId: dataset.pixelId, entries: [{ entryId, acceptedAt: dataset.end.toISOString(), events: dayEvents, superseded: [] }], orders: [] });
    if (Math.floor((events + dayEvents.length) / 100_000) > Math.floor(events / 100_000)) log(`  ${(events + dayEvents.length).toLocaleString('en-US')} events written...`);
    events += dayEvents.length;
  }
  const orders = await writeNewOrders(dataset.pixelId, sources);
  if (options.journeys ?? true) {
    log(`  writing the journeys of ${deliveries.length.toLocaleString('en-US')} events...`);
    await writeInitialJourneys(dataset.pixelId, deliveries, orders);
  }
  return { orders: orders.length, events, ads: adOptions.ads, writeSeconds: (performance.now() - started) / 1000 };
}
