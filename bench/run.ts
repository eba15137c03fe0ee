/**
 * `npm run bench`: what each function costs to ship, to load and to run warm, what the ad listing,
 * the analytics queries and ingestion cost on generated data, and whether the local server's
 * memory stays bounded. Prints a report and writes bench/results.json (schema version 1,
 * bench/results-schema.ts). Every number is measured on this run; nothing is asserted against a
 * time budget, because wall-clock limits on a shared machine only produce flaky failures.
 *
 * `npm run bench -- --quick` runs every case on small data (README, Benchmarks): for CI, which
 * checks the file's schema, and for working on the bench itself. Its figures are not comparable
 * with a full run's.
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { AdListingResult } from './ad-listing';
import { measureFirstStart } from './first-start';
import { ingestionCases, measureIngestion, printIngestion, type IngestionResult } from './ingestion';
import { bundleFunctions, initSamplingFromEnv, measureFunctions, printFunctionCases, type FunctionCases } from './functions';
import { measureLatency } from './latency';
import { latencyCases } from './latency-cases';
import { formatBytes, formatMegabytes, formatMs, formatTable } from './report';
import { mergeSectionIntoResults, resultsFilePath, resultsHeader, writeResults } from './results-file';
import { asCases, missingCases, type BenchResults, type CaseFigures } from './results-schema';
import { ownsCase, runInOrder, secondsSince, type Section as BenchSection, type SectionMeasure, type SectionOutcome as BenchSectionOutcome } from './run-sections';
import { DEFAULT_QUERY_SCALE, prepareSectionProcess, type SectionName, type SectionResult } from './section-process';
import { measureSoak, printSoak, soakCases, type SoakResult } from './soak';
import { roundMs, summarize } from './stats';
import type { QueryBenchResult } from './query';

const quick = process.argv.includes('--quick');

/**
 * What `--quick` shrinks. Settings read from the environment (by this process and by the section
 * processes it starts) are set only where the caller has not set them, so a quick run can still be
 * tuned; the others are this file's own. The ad listing keeps its 365-day history pixel (40 ads of
 * it import in seconds), so every case keeps its shape and its response checks.
 */
const QUICK_ENV: Record<string, string> = {
  BENCH_INIT_RUNS: '3',
  BENCH_AD_LISTING_ADS: '40',
  BENCH_QUERY_SCALE: '0.005',
  BENCH_QUERY_REQUESTS: '2',
  BENCH_INGESTION_BATCHES: '40',
  BENCH_PROJECT_RATE: '1000',
  BENCH_PROJECT_SECONDS: '3',
  BENCH_SOAK_SECONDS: '10',
  // Small data past the function's 10 s means a loaded machine, not a slow case (bench/invoke.ts).
  BENCH_DEADLINE_MS: '60000',
};
if (quick) for (const [name, value] of Object.entries(QUICK_ENV)) process.env[name] ??= value;

const INIT_SAMPLING = initSamplingFromEnv();
const MIDDLEWARE = quick ? { rounds: 1, warmup: 50, requests: 200 } : { rounds: 3, warmup: 200, requests: 2_000 };
const LATENCY_REQUESTS = quick ? 100 : 2_000;
const WARMUP_REQUESTS = quick ? 20 : 100;
const FIRST_START_RUNS = quick ? 1 : 3;

const projectRoot = fileURLToPath(new URL('..', import.meta.url));
const log = (line = '') => process.stdout.write(`${line}\n`);

interface LatencyResult {
  requests: number;
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

/** The detail sections beside `cases`: sizes, descriptions, CPU seconds; what a reader needs to trust the figures. */
interface Details {
  functions?: FunctionCases['functions'];
  latency?: Record<string, LatencyResult>;
  adListing?: AdListingResult;
  /** POST /db-mgmt/api/query (and attribution, cohorts) on a generated year of orders, events and ads (bench/query.ts). */
  query?: QueryBenchResult['dataset'] & { scale: number; failed: QueryBenchResult['failed'] };
  /** Event ingestion through the local server (bench/ingestion.ts). */
  ingestion?: IngestionResult;
  /** `npm start` on an empty data directory (demo seeding included) until its ready line. */
  firstStart?: { runs: number; medianMs: number; minMs: number; maxMs: number };
  /** The local server's RSS under a long mixed load (bench/soak.ts). */
  soak?: SoakResult;
}

type SectionOutcome = BenchSectionOutcome<Details>;

type Measure = SectionMeasure<Details>;
type Section = BenchSection<Details>;

async function prepareFunctions(): Promise<Measure> {
  const bundles = await bundleFunctions({ projectRoot, log });
  return async () => {
    const result = await measureFunctions({ bundles, log, initSampling: INIT_SAMPLING, middleware: MIDDLEWARE });
    log();
    log(`Bundles (minified .js, source map not counted) and module init (${INIT_SAMPLING.runs} cold node processes a route)`);
    log(
      formatTable(
        ['function', 'bundle', 'init median', 'min', 'max'],
        Object.entries(result.functions).map(([id, fn]) => [id, formatBytes(fn.bundleBytes), formatMs(fn.initMs.median), formatMs(fn.initMs.min), formatMs(fn.initMs.max)]),
      ),
    );
    log();
    printFunctionCases(result, log);
    return { cases: { ...asCases(result.initCases), ...asCases(result.middlewareCases) }, details: { functions: result.functions } };
  };
}

async function benchLatency(): Promise<SectionOutcome> {
  log(`Measuring warm latency: ${LATENCY_REQUESTS.toLocaleString('en-US')} requests per case after ${WARMUP_REQUESTS} warm-up...`);
  const samples = await measureLatency({ cases: latencyCases, projectRoot, requests: LATENCY_REQUESTS, warmupRequests: WARMUP_REQUESTS });
  const latency: Record<string, LatencyResult> = {};
  const cases: Record<string, CaseFigures> = {};
  for (const [caseId, durations] of samples) {
    const summary = summarize(durations);
    latency[caseId] = { requests: summary.count, p50Ms: roundMs(summary.median), p99Ms: roundMs(summary.p99), meanMs: roundMs(summary.mean) };
    cases[`latency.${caseId}`] = { p50Ms: latency[caseId].p50Ms, p99Ms: latency[caseId].p99Ms, n: summary.count };
  }
  log('Warm in-process latency (full middy stack, dynalite in memory, local EventBridge sink)');
  log(
    formatTable(
      ['case', 'requests', 'p50', 'p99', 'mean'],
      Object.entries(latency).map(([id, result]) => [id, result.requests.toLocaleString('en-US'), formatMs(result.p50Ms), formatMs(result.p99Ms), formatMs(result.meanMs)]),
    ),
  );
  return { cases, details: { latency } };
}

const toMb = (bytes: number) => Math.round((bytes / 1_048_576) * 10) / 10;

/**
 * A section that prepares its dataset in a process of its own (bench/section-process.ts) and
 * later measures there, on that data; `outcome` turns what the process measured into cases.
 */
function inSectionProcess<N extends SectionName>(name: N, what: string, dataset: string, outcome: (result: SectionResult<N>) => SectionOutcome) {
  return async (): Promise<Measure> => {
    log(`Preparing ${what}: ${dataset} (in a process of its own)...`);
    const measure = await prepareSectionProcess(name, projectRoot);
    return async () => {
      log(`Measuring ${what} (in its process, on the data it prepared)...`);
      return outcome(await measure());
    };
  };
}

function adListingOutcome(adListing: AdListingResult): SectionOutcome {
  printAdListing(adListing);
  const cases: Record<string, CaseFigures> = {};
  const failed: Record<string, string> = {};
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
  for (const [id, reason] of Object.entries(adListing.failed ?? {})) failed[`queryAds.${id}`] = reason;
  // The page against its floor: the same numbers computed by DuckDB straight over the Parquet files.
  const page = cases['queryAds.page500x10x45x45'];
  if (page && adListing.floor) Object.assign(page, { floorP50Ms: adListing.floor.p50Ms, floorRatio: adListing.floor.ratio });
  const long = adListing.cases.history365;
  const short = adListing.cases.page500x10x45x45;
  // The same page on 365 days of history over 90: 1 means a page's cost ignores the history behind it.
  if (long && short) cases['queryAds.history365vs90'] = { ratio: Math.round((long.p50Ms / short.p50Ms) * 100) / 100 };
  else failed['queryAds.history365vs90'] = 'needs queryAds.history365 and queryAds.page500x10x45x45, and one was not measured';
  return { cases, failed, details: { adListing } };
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
  if (adListing.floor) {
    log(`  floor of page500x10x45x45: p50 ${formatMs(adListing.floor.p50Ms)}, p99 ${formatMs(adListing.floor.p99Ms)} (${adListing.floor.description}); the case is ${adListing.floor.ratio}x it`);
  }
  for (const [id, reason] of Object.entries(adListing.failed ?? {})) log(`  ${id}: not measured (${reason})`);
}

function queryOutcome(result: QueryBenchResult): SectionOutcome {
  const cases: Record<string, CaseFigures> = {};
  for (const [id, { p50Ms, p99Ms, n, jsonBytes }] of Object.entries(result.cases)) cases[id] = { p50Ms, p99Ms, n, jsonBytes };
  log(formatTable(['case', 'n', 'JSON', 'p50', 'p99'], Object.entries(result.cases).map(([id, c]) => [id, String(c.n), formatBytes(c.jsonBytes), formatMs(c.p50Ms), formatMs(c.p99Ms)])));
  for (const [id, c] of Object.entries(result.cases)) log(`  ${id}: ${c.description}`);
  for (const [id, reason] of Object.entries(result.failed)) log(`  ${id}: not measured (${reason})`);
  return {
    cases,
    failed: result.failed,
    details: { query: { ...result.dataset, scale: Number(process.env.BENCH_QUERY_SCALE ?? DEFAULT_QUERY_SCALE), failed: result.failed } },
  };
}

async function benchIngestion(): Promise<SectionOutcome> {
  const ingestion = await measureIngestion({ projectRoot, log });
  printIngestion(ingestion, log);
  const failed = 'failed' in ingestion.project ? { 'ingest.project': ingestion.project.failed } : undefined;
  return { cases: ingestionCases(ingestion), failed, details: { ingestion } };
}

async function benchFirstStart(): Promise<SectionOutcome> {
  log(`Timing ${FIRST_START_RUNS} first start(s) of the local server on empty data directories...`);
  const summary = summarize(await measureFirstStart({ projectRoot, runs: FIRST_START_RUNS }));
  const firstStart = { runs: summary.count, medianMs: roundMs(summary.median), minMs: roundMs(summary.min), maxMs: roundMs(summary.max) };
  log(
    `First start (empty data directory, demo pixel seeded) to the ready line: median ${formatMs(firstStart.medianMs)} ` +
      `(min ${formatMs(firstStart.minMs)}, max ${formatMs(firstStart.maxMs)}, ${firstStart.runs} runs)`,
  );
  return { cases: { firstStart: { ms: firstStart.medianMs } }, details: { firstStart } };
}

async function benchSoak(): Promise<SectionOutcome> {
  const soak = await measureSoak({ projectRoot, log });
  printSoak(soak, log);
  return { cases: soakCases(soak), details: { soak } };
}

/**
 * The sections in the order they run, each with the case-id prefixes it reports (bench/run-sections.ts:
 * `runSection` for one that fails as a whole). A section either measures at once (`measure`) or
 * first prepares what it measures on (`prepare`: bundles, or a generated dataset in a live store
 * process) and resolves to its measurement.
 *
 * The soak comes first and `hostsPreparation`: while it runs, the later sections prepare, one
 * after another, and the next section starts only once every preparation is done, so each
 * measurement still has the machine to itself (`runInOrder`). The soak's figures are its own
 * server's RSS, which work in other processes does not change. Init times come before the latency
 * section: that one loads the SDK and starts servers in this process, which would compete with
 * the child processes for the CPU.
 */
const sections: readonly Section[] = [
  { name: 'soak', prefixes: ['soak'], measure: benchSoak, hostsPreparation: true },
  { name: 'functions', prefixes: ['init.', 'middleware.'], prepare: prepareFunctions },
  { name: 'latency', prefixes: ['latency.'], measure: benchLatency },
  { name: 'adListing', prefixes: ['queryAds.'], prepare: inSectionProcess('adListing', 'the ad listing', 'a large generated pixel', adListingOutcome) },
  { name: 'query', prefixes: ['query.', 'attribution.', 'cohort.'], prepare: inSectionProcess('query', 'the analytics query', 'a generated year of orders and events', queryOutcome) },
  { name: 'ingestion', prefixes: ['ingest.'], measure: benchIngestion },
  { name: 'firstStart', prefixes: ['firstStart'], measure: benchFirstStart },
];

function printCases(results: BenchResults): void {
  log();
  log(`Cases as written to the results file (schema version ${results.schemaVersion})`);
  const width = Math.max(...Object.keys(results.cases).map((id) => id.length));
  for (const [id, figures] of Object.entries(results.cases)) {
    log(`${id.padEnd(width)}  ${Object.entries(figures).map(([name, value]) => `${name} ${value}`).join(', ')}`);
  }
  for (const [id, reason] of Object.entries(results.failed)) log(`  ${id}: not measured (${reason})`);
}

/**
 * `BENCH_SECTIONS=latency,soak npm run bench`: only the named sections, each merged into the
 * existing results file as `bench:soak` merges its own (its cases and failures replace the
 * section's earlier ones; the other sections' stay). For measuring one section again after a
 * change or a failed run without repeating the others. A section without the soak prepares its
 * own data first, as it would in any other turn.
 */
async function runSectionsAlone(names: readonly string[]): Promise<void> {
  const unknown = names.filter((name) => !sections.some((section) => section.name === name));
  if (unknown.length > 0) throw new Error(`BENCH_SECTIONS: no section ${unknown.join(', ')} (sections: ${sections.map((section) => section.name).join(', ')})`);
  const resultsFile = resultsFilePath(projectRoot);
  await runInOrder(
    sections.filter(({ name }) => names.includes(name)),
    log,
    (section, outcome, crashed) => {
      if (crashed) process.exitCode = 1;
      const owns = (id: string) => ownsCase(section, id);
      mergeSectionIntoResults(resultsFile, { command: `bench (BENCH_SECTIONS=${section.name})`, owns, cases: outcome.cases, failed: outcome.failed, details: { ...outcome.details } });
    },
  );
  log(`Wrote ${resultsFile}`);
}

async function main(): Promise<void> {
  const only = process.env.BENCH_SECTIONS?.split(',').filter((name) => name !== '');
  if (only !== undefined && only.length > 0) return runSectionsAlone(only);
  const started = performance.now();
  const header = resultsHeader();
  log(`Node ${header.node} on ${header.cpus} x ${header.cpuModel}${quick ? '; --quick: small data, figures not comparable with a full run' : ''}`);
  const cases: Record<string, CaseFigures> = {};
  const failed: Record<string, string> = {};
  const details: Details = {};
  let sectionsFailed = 0;
  const times = await runInOrder(sections, log, (_section, outcome, crashed) => {
    if (crashed) sectionsFailed++;
    Object.assign(cases, outcome.cases);
    Object.assign(failed, outcome.failed);
    Object.assign(details, outcome.details);
  });
  const run = { wallSeconds: secondsSince(started), ...times, loadAverage: loadavg().map((load) => Math.round(load * 10) / 10), peakRssBytes: process.resourceUsage().maxRSS * 1024 };
  const results: BenchResults = {
    ...header,
    quick,
    // The settings that shape the data and the sample sizes, so a file says what it measured.
    settings: Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith('BENCH_') && name !== 'BENCH_RESULTS_FILE')),
    cases,
    failed,
    ...details,
    /** The whole run: wall seconds, per section, what was prepared during the soak, the load average at the end, and the peak RSS of its own process (each section process reports its own). */
    run,
  };
  printCases(results);
  const unaccounted = missingCases(results);
  for (const [id, what] of Object.entries(unaccounted)) log(`  ${id}: ${what}`);
  const resultsFile = resultsFilePath(projectRoot);
  writeResults(resultsFile, results);
  log();
  log(
    `Whole run: ${run.wallSeconds.toFixed(1)} s (${Object.entries(times.sectionSeconds).map(([name, seconds]) => `${name} ${seconds.toFixed(0)} s`).join(', ')}); ` +
      `load average ${run.loadAverage.join(', ')}; peak RSS of the runner ${formatMegabytes(run.peakRssBytes)}`,
  );
  log(`Wrote ${resultsFile}`);
  // A case that could not be measured is a result; a section that crashed, or a required case
  // nobody reported, is a broken bench.
  if (sectionsFailed > 0 || Object.keys(unaccounted).length > 0) process.exitCode = 1;
}

try {
  await main();
} catch (error) {
  console.error('Benchmark failed:', error);
  process.exitCode = 1;
}
