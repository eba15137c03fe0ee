import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../../lib/routes';
import { benchResultsSchema, missingCases, requiredCases, RESULTS_SCHEMA_VERSION, type BenchResults } from '../../bench/results-schema';

/**
 * `npm run bench -- --quick` end to end: every section on small data, written to a temporary
 * results file, then the file checked against schema version 1. Only the file's shape and
 * completeness are asserted; its figures are measurements, never held to a time budget here.
 * A few minutes on 2 cores; the limit below only stops a hung run.
 */
const RUN_LIMIT_MS = 20 * 60_000;

/**
 * The bench runs as a developer starts it: the test run's own settings (the shared test store's
 * endpoints, table names, silenced logs and metrics) and any BENCH_* tuning are left out, and the
 * results go to a temporary file, never to the developer's bench/results.json.
 */
function benchEnv(resultsFile: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, BENCH_RESULTS_FILE: resultsFile };
  for (const name of Object.keys(env)) {
    if ((name.startsWith('BENCH_') && name !== 'BENCH_RESULTS_FILE') || name.startsWith('POWERTOOLS_') || name.startsWith('AWS_')) delete env[name];
  }
  for (const name of ['TABLE_NAME', 'EVENT_BUS_NAME', 'TEST_EVENTS_FILE']) delete env[name];
  return env;
}

let scratchDir: string;
let exitCode: number | null;
let output = '';
let results: BenchResults;

beforeAll(async () => {
  scratchDir = mkdtempSync(join(tmpdir(), 'bench-quick-'));
  const resultsFile = join(scratchDir, 'results.json');
  // What `npm run bench -- --quick` runs (package.json), with this test's Node.
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', '--quick'], { env: benchEnv(resultsFile), stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => resolve(code));
  });
  let written: string;
  try {
    written = readFileSync(resultsFile, 'utf8');
  } catch {
    throw new Error(`the quick bench (exit ${exitCode}) wrote no results file; its output ends:\n${output.slice(-4_000)}`);
  }
  results = benchResultsSchema.parse(JSON.parse(written));
}, RUN_LIMIT_MS);

afterAll(() => {
  if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
});

describe('npm run bench -- --quick', () => {
  it('finishes without a failed section', () => {
    expect(exitCode, output.slice(-4_000)).toBe(0);
  });

  it('writes a results file of schema version 1 that says it was a quick run on this machine', () => {
    expect(results.schemaVersion).toBe(RESULTS_SCHEMA_VERSION);
    expect(results.node).toBe(process.version);
    expect(results.cpus).toBeGreaterThan(0);
    expect(Date.now() - Date.parse(results.generatedAt)).toBeLessThan(RUN_LIMIT_MS);
    expect(results.quick).toBe(true);
  });

  it('measures every case: none listed as failed, none missing, every figure a finite number', () => {
    expect(results.failed).toEqual({});
    expect(missingCases(results)).toEqual({});
    for (const [id, figures] of Object.entries(results.cases)) {
      for (const [name, value] of Object.entries(figures)) expect(Number.isFinite(value), `${id}.${name} = ${value}`).toBe(true);
    }
  });

  it('runs the soak first, prepares the functions, ad-listing and query sections meanwhile, and times every section', () => {
    const run = results.run as { wallSeconds: number; sectionSeconds: Record<string, number>; preparation: { during: string; seconds: Record<string, number>; waitedSeconds: number } };
    expect(Object.keys(run.sectionSeconds)).toEqual(['soak', 'functions', 'latency', 'adListing', 'query', 'ingestion', 'firstStart']);
    expect(run.preparation.during).toBe('soak');
    expect(Object.keys(run.preparation.seconds)).toEqual(['functions', 'adListing', 'query']);
    expect(run.preparation.waitedSeconds).toBeGreaterThanOrEqual(0);
    const sections = Object.values(run.sectionSeconds).reduce((sum, seconds) => sum + seconds, 0);
    // Every section in turn, the wait for the preparations between them: the run's wall time is their sum and the wait.
    expect(run.wallSeconds).toBeGreaterThanOrEqual(sections + run.preparation.waitedSeconds - 1);
  });

  it('reports init and middleware against the bare bundle for every route of the route table', () => {
    for (const { id } of routeTable) {
      expect(results.cases[`init.${id}`]).toMatchObject({ medianMs: expect.any(Number), bareMedianMs: expect.any(Number), ratio: expect.any(Number) });
      expect(results.cases[`middleware.${id}`]).toMatchObject({ p50Us: expect.any(Number), bareP50Us: expect.any(Number) });
      const init = results.cases[`init.${id}`]!;
      expect(init.ratio).toBeCloseTo(init.medianMs! / init.bareMedianMs!, 1);
    }
  });

  it('reports the issue’s named cases with their figures', () => {
    const named: Record<string, string[]> = {
      'queryAds.page500x10x45x45': ['p50Ms', 'p99Ms', 'n', 'jsonBytes', 'wireBytes', 'peakRssMb'],
      'queryAds.page500x10x90x90': ['p50Ms', 'p99Ms', 'n', 'jsonBytes', 'wireBytes', 'peakRssMb'],
      'queryAds.filteredListing': ['p50Ms', 'p99Ms', 'n', 'jsonBytes', 'wireBytes', 'peakRssMb'],
      'queryAds.lastPage': ['p50Ms', 'p99Ms', 'n', 'jsonBytes', 'wireBytes', 'peakRssMb'],
      'queryAds.history365vs90': ['ratio'],
      'ingest.accept': ['eventsPerSec', 'batchP50Ms', 'batchP99Ms'],
      'ingest.project': ['eventsPerSec', 'lagP50Ms', 'lagP99Ms'],
      soak: ['rssStartMb', 'rssPeakMb', 'rssEndMb'],
      firstStart: ['ms'],
    };
    for (const [id, figures] of Object.entries(named)) {
      expect(Object.keys(results.cases[id] ?? {}), id).toEqual(expect.arrayContaining(figures));
    }
    for (const prefix of ['query.', 'attribution.', 'cohort.']) {
      const ids = Object.keys(results.cases).filter((id) => id.startsWith(prefix));
      expect(ids.length, prefix).toBeGreaterThan(0);
      for (const id of ids) expect(Object.keys(results.cases[id]!)).toEqual(expect.arrayContaining(['p50Ms', 'p99Ms', 'n']));
    }
    // Every required id is the schema module's list, so a case added to a section is required too.
    expect(Object.keys(requiredCases()).length).toBeGreaterThanOrEqual(2 * routeTable.length + Object.keys(named).length);
  });
});
