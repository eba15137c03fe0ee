/**
 * `npm run bench`: what each function costs to ship, to load and to run warm, and what the ad
 * listing costs on a large pixel. Prints a report and writes bench/results.json. Every number is
 * measured on this run; nothing is asserted against a time budget, because wall-clock limits on a
 * shared machine only produce flaky failures.
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AdListingResult } from './ad-listing';
import { measureFirstStart } from './first-start';
import { ingestionCases, measureIngestion, printIngestion, type IngestionResult } from './ingestion';
import { measureFunctions, printFunctionCases, type FunctionCases } from './functions';
import { measureLatency } from './latency';
import { latencyCases } from './latency-cases';
import { formatBytes, formatMegabytes, formatMs, formatTable } from './report';
import { runSectionProcess } from './section-process';
import { measureSoak, printSoak, type SoakResult } from './soak';
import { roundMs, summarize } from './stats';
import type { QueryBenchResult } from './query';

const INIT_RUNS = 15;
const LATENCY_REQUESTS = 2_000;
const WARMUP_REQUESTS = 100;

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const benchDir = join(projectRoot, 'bench');
const log = (line = '') => process.stdout.write(`${line}\n`);

interface LatencyResult {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

interface BenchResults {
  generatedAt: string;
  node: string;
  machine: { cpus: number; model: string };
  functions: FunctionCases['functions'];
  /** `init.<routeId>` and `middleware.<routeId>`, each against the bare bundle of the same run. */
  initCases: FunctionCases['initCases'];
  middlewareCases: FunctionCases['middlewareCases'];
  latency: Record<string, LatencyResult>;
  adListing: AdListingResult;
  /** POST /db-mgmt/api/query on a generated year of orders, events and ads (bench/query.ts). */
  query: QueryBenchResult['dataset'] & { scale: number; failed: QueryBenchResult['failed'] };
  /** Event ingestion through the local server (bench/ingestion.ts). */
  ingestion: IngestionResult;
  /** `npm start` on an empty data directory (demo seeding included) until its ready line. */
  firstStart: { runs: number; medianMs: number; minMs: number; maxMs: number };
  /** The local server's RSS under a long mixed load (bench/soak.ts): bounded when the end is within 20 % of the post-warm-up level. */
  soak: SoakResult;
  /** Figures by stable case id (ARCHITECTURE.md conventions), compared across runs. */
  cases: Record<string, Record<string, number>>;
  /** The whole `npm run bench`, and the peak RSS of its own process (each section process reports its own). */
  run: { wallSeconds: number; peakRssBytes: number };
}

async function benchFunctions(): Promise<Pick<BenchResults, 'functions' | 'initCases' | 'middlewareCases'>> {
  return measureFunctions({ projectRoot, log, initRuns: INIT_RUNS });
}

async function benchLatency(): Promise<BenchResults['latency']> {
  log(`Measuring warm latency: ${LATENCY_REQUESTS.toLocaleString('en-US')} requests per case after ${WARMUP_REQUESTS} warm-up...`);
  const samples = await measureLatency({
    cases: latencyCases,
    projectRoot,
    requests: LATENCY_REQUESTS,
    warmupRequests: WARMUP_REQUESTS,
  });
  const latency: BenchResults['latency'] = {};
  for (const [caseId, durations] of samples) {
    const summary = summarize(durations);
    latency[caseId] = {
      requests: summary.count,
      p50Ms: roundMs(summary.median),
      p99Ms: roundMs(summary.p99),
      meanMs: roundMs(summary.mean),
    };
  }
  return latency;
}

async function benchAdListing(): Promise<BenchResults['adListing']> {
  log('Measuring the ad listing on a large generated pixel (in a process of its own)...');
  return runSectionProcess('adListing', projectRoot);
}

function printReport(results: BenchResults): void {
  log();
  log(`Node ${results.node} on ${results.machine.cpus} x ${results.machine.model}`);
  log();
  log(`Bundles (minified .js, source map not counted) and module init (${INIT_RUNS} cold node processes)`);
  log(
    formatTable(
      ['function', 'bundle', 'init median', 'min', 'max'],
      Object.entries(results.functions).map(([id, fn]) => [
        id,
        formatBytes(fn.bundleBytes),
        formatMs(fn.initMs.median),
        formatMs(fn.initMs.min),
        formatMs(fn.initMs.max),
      ]),
    ),
  );
  log();
  printFunctionCases(results, log);
  log();
  log('Warm in-process latency (full middy stack, dynalite in memory, local EventBridge sink)');
  log(
    formatTable(
      ['case', 'requests', 'p50', 'p99', 'mean'],
      Object.entries(results.latency).map(([id, result]) => [
        id,
        result.requests.toLocaleString('en-US'),
        formatMs(result.p50Ms),
        formatMs(result.p99Ms),
        formatMs(result.meanMs),
      ]),
    ),
  );
  printAdListing(results.adListing);
  printIngestion(results.ingestion, log);
  log();
  const { firstStart } = results;
  log(
    `First start (empty data directory, demo pixel seeded) to the ready line: median ${formatMs(firstStart.medianMs)} ` +
      `(min ${formatMs(firstStart.minMs)}, max ${formatMs(firstStart.maxMs)}, ${firstStart.runs} runs)`,
  );
  printSoak(results.soak, log);
  log();
  log(`Whole run: ${results.run.wallSeconds.toFixed(1)} s; peak RSS of the runner ${formatMegabytes(results.run.peakRssBytes)}`);
}

const toMb = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10;

/** The ad-listing figures by stable case id: `queryAds.<case>`, and the history ratio. */
function adListingCases(adListing: AdListingResult): BenchResults['cases'] {
  const cases: BenchResults['cases'] = {};
  for (const [id, result] of Object.entries(adListing.cases)) {
    cases[`queryAds.${id}`] = {
      p50Ms: result.p50Ms,
      p99Ms: result.p99Ms,
      n: result.requests,
      jsonBytes: result.responseBytes,
      wireBytes: result.wireBytes,
      peakRssMb: toMb(result.peakRssBytes),
    };
  }
  const long = adListing.cases.history365;
  const short = adListing.cases.page500x10x45x45;
  // The same page on 365 days of history over 90: 1 means a page's cost ignores the history behind it.
  if (long && short) cases['queryAds.history365vs90'] = { ratio: Math.round((long.p50Ms / short.p50Ms) * 100) / 100 };
  return cases;
}

function printAdListing(adListing: AdListingResult): void {
  const { dataset, store } = adListing;
  log();
  log(
    `Ad listing: POST /db-mgmt/api/query-ads on ${dataset.ads.toLocaleString('en-US')} ads x ${dataset.days} days ` +
      `(${dataset.hourlyRows.toLocaleString('en-US')} hourly rows, metrics up to ${dataset.end}), dynalite in memory (${store.mode})`,
  );
  log(
    `Import: ${dataset.importSeconds.toFixed(1)} s (${dataset.generateSeconds.toFixed(1)} s generating); peak RSS: ` +
      `section ${formatMegabytes(adListing.peakRssBytes)}` +
      (store.peakRssBytes === null ? '' : `, store process ${formatMegabytes(store.peakRssBytes)}`),
  );
  const cases = Object.entries(adListing.cases);
  log(
    formatTable(
      ['case', 'requests', 'rows', 'JSON', 'sent', 'p50', 'p99', 'mean', 'peak RSS'],
      cases.map(([id, result]) => [
        id,
        result.requests.toLocaleString('en-US'),
        result.rowsPerResponse.toLocaleString('en-US'),
        formatMegabytes(result.responseBytes),
        formatMegabytes(result.wireBytes),
        formatMs(result.p50Ms),
        formatMs(result.p99Ms),
        formatMs(result.meanMs),
        formatMegabytes(result.peakRssBytes),
      ]),
    ),
  );
  for (const [id, result] of cases) log(`  ${id}: ${result.description}`);
  for (const [id, reason] of Object.entries(adListing.failed ?? {})) log(`  ${id}: not measured (${reason})`);
}

async function benchQuery(): Promise<Pick<BenchResults, 'query' | 'cases'>> {
  log('Measuring the analytics query on a generated year of orders and events (in a process of its own)...');
  const result = await runSectionProcess('query', projectRoot);
  const cases: BenchResults['cases'] = {};
  for (const [id, { p50Ms, p99Ms, n, jsonBytes }] of Object.entries(result.cases)) cases[id] = { p50Ms, p99Ms, n, jsonBytes };
  log(formatTable(['case', 'n', 'JSON', 'p50', 'p99'], Object.entries(result.cases).map(([id, c]) => [id, String(c.n), formatBytes(c.jsonBytes), formatMs(c.p50Ms), formatMs(c.p99Ms)])));
  for (const [id, c] of Object.entries(result.cases)) log(`  ${id}: ${c.description}`);
  for (const [id, reason] of Object.entries(result.failed)) log(`  ${id}: not measured (${reason})`);
  return { query: { ...result.dataset, scale: Number(process.env.BENCH_QUERY_SCALE ?? 0.05), failed: result.failed }, cases };
}

const FIRST_START_RUNS = 3;

async function benchFirstStart(): Promise<BenchResults['firstStart']> {
  log(`Timing ${FIRST_START_RUNS} first starts of the local server on empty data directories...`);
  const summary = summarize(await measureFirstStart({ projectRoot, runs: FIRST_START_RUNS }));
  return { runs: summary.count, medianMs: roundMs(summary.median), minMs: roundMs(summary.min), maxMs: roundMs(summary.max) };
}

async function main(): Promise<void> {
  const started = performance.now();
  const processors = cpus();
  const results: BenchResults = {
    generatedAt: new Date().toISOString(),
    node: process.version,
    machine: { cpus: processors.length, model: processors[0]?.model.trim() ?? 'unknown' },
    // Init times first: the latency section loads the SDK and starts servers in this process,
    // which would compete with the child processes for the CPU.
    ...(await benchFunctions()),
    latency: await benchLatency(),
    adListing: await benchAdListing(),
    ...(await benchQuery()),
    ingestion: await measureIngestion({ projectRoot, log }),
    firstStart: await benchFirstStart(),
    soak: await measureSoak({ projectRoot, log }),
    cases: {},
    run: { wallSeconds: 0, peakRssBytes: 0 },
  };
  Object.assign(results.cases, results.initCases, results.middlewareCases);
  Object.assign(results.cases, adListingCases(results.adListing));
  Object.assign(results.cases, ingestionCases(results.ingestion));
  results.run = {
    wallSeconds: Math.round((performance.now() - started) / 100) / 10,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
  printReport(results);
  const resultsFile = join(benchDir, 'results.json');
  writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);
  log();
  log(`Wrote ${resultsFile}`);
}

try {
  await main();
} catch (error) {
  console.error('Benchmark failed:', error);
  process.exitCode = 1;
}
