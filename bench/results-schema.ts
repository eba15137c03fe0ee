import * as z from 'zod';
import { routeTable, type RouteCapabilities } from '../lib/routes';
import { adListingCases } from './ad-listing-cases';
import { attributionCases, queryCases } from './query';
import { cohortCases } from './query-cohort';

/**
 * The shape of bench/results.json, version 1 (issue P10, ARCHITECTURE.md conventions):
 * `{ schemaVersion, generatedAt, node, cpus, cases: { <id>: { …figures } } }`. Case ids are stable
 * once published, so files compare across runs. Sections may add detail beside `cases` (dataset
 * sizes, CPU seconds, descriptions); only `cases` holds the figures that are compared.
 */
export const RESULTS_SCHEMA_VERSION = 1;

const figure = z.number().refine(Number.isFinite, 'a finite number');
const caseFigures = z.record(z.string(), figure);

export const benchResultsSchema = z
  .object({
    schemaVersion: z.literal(RESULTS_SCHEMA_VERSION),
    generatedAt: z.iso.datetime(),
    node: z.string().regex(/^v\d+\.\d+\.\d+/),
    cpus: z.number().int().positive(),
    cases: z.record(z.string(), caseFigures),
    /** Cases that were run but could not be measured, with why: never silently missing. */
    failed: z.record(z.string(), z.string()).default({}),
  })
  // Detail sections (functions, adListing, query, ingestion, soak, ...) ride along unchecked.
  .loose();

export type BenchResults = z.infer<typeof benchResultsSchema>;
export type CaseFigures = Record<string, number>;

/** Cases typed by a section's own interface (every field a number) as the file's figures. */
export const asCases = <T extends Record<keyof T, number>>(cases: Record<string, T>): Record<string, CaseFigures> => cases as Record<string, CaseFigures>;

const QUERY_ADS_FIGURES = ['p50Ms', 'p99Ms', 'n', 'jsonBytes', 'wireBytes', 'peakRssMb'] as const;
const QUERY_FIGURES = ['p50Ms', 'p99Ms', 'n'] as const;

/** The ad-listing cases the issue names; the others the section runs are required as well. */
const NAMED_QUERY_ADS_CASES = ['page500x10x45x45', 'page500x10x90x90', 'filteredListing', 'lastPage'];

/**
 * Every case id a full `npm run bench` (or `--quick`) must report, with the figures each must
 * carry (it may carry more): one `init.` and one `middleware.` case per route of the route table,
 * every ad-listing, query, attribution and cohort case the sections define, ingestion, the soak
 * and the first start.
 */
export function requiredCases(routeIds: readonly string[] = routeTable.map((route) => route.id)): Record<string, readonly string[]> {
  const required: Record<string, readonly string[]> = {};
  for (const routeId of routeIds) {
    required[`init.${routeId}`] = ['medianMs', 'bareMedianMs', 'ratio'];
    required[`middleware.${routeId}`] = ['p50Us', 'bareP50Us'];
    if ((routeTable.find((route) => route.id === routeId)?.capabilities as RouteCapabilities | undefined)?.analytics) required[`initEngine.${routeId}`] = ['medianMs', 'bareMedianMs', 'overBareMs'];
  }
  for (const id of new Set([...NAMED_QUERY_ADS_CASES, ...adListingCases.map((listingCase) => listingCase.id)])) {
    required[`queryAds.${id}`] = QUERY_ADS_FIGURES;
  }
  required['queryAds.history365vs90'] = ['ratio'];
  for (const { id } of [...queryCases, ...attributionCases, ...cohortCases]) required[id] = QUERY_FIGURES;
  required['ingest.accept'] = ['eventsPerSec', 'batchP50Ms', 'batchP99Ms'];
  required['ingest.project'] = ['eventsPerSec', 'lagP50Ms', 'lagP99Ms'];
  required.soak = ['rssStartMb', 'rssPeakMb', 'rssEndMb'];
  required.firstStart = ['ms'];
  return required;
}

/**
 * Required cases that a results file neither reports with all their figures nor lists under
 * `failed`, as `id: what is wrong`: empty for a complete file.
 */
export function missingCases(results: Pick<BenchResults, 'cases' | 'failed'>, required = requiredCases()): Record<string, string> {
  const missing: Record<string, string> = {};
  for (const [id, figures] of Object.entries(required)) {
    if (Object.hasOwn(results.failed, id)) continue;
    const reported = results.cases[id];
    if (!reported) {
      missing[id] = 'neither measured nor listed as failed';
      continue;
    }
    const absent = figures.filter((name) => typeof reported[name] !== 'number');
    if (absent.length > 0) missing[id] = `figures missing: ${absent.join(', ')}`;
  }
  return missing;
}

/** A results file of schema version 1 with every required case accounted for, or throws saying what is wrong. */
export function parseBenchResults(json: unknown, required = requiredCases()): BenchResults {
  const results = benchResultsSchema.parse(json);
  const missing = missingCases(results, required);
  if (Object.keys(missing).length > 0) {
    throw new Error(`results file incomplete: ${Object.entries(missing).map(([id, what]) => `${id} (${what})`).join('; ')}`);
  }
  return results;
}
