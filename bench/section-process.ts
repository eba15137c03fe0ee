import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { prepareAdListing, type AdListingResult } from './ad-listing';
import { adListingCases, adListingDataset } from './ad-listing-cases';
import type { StoreMode } from './bench-store';
import { prepareQuery, type QueryBenchResult } from './query';

/**
 * Benchmark sections that run in a Node process of their own. A section that needs its own store
 * must: the handlers' SDK clients are built once per process and keep the endpoint they first
 * used. A process of its own also keeps a large dataset's memory and garbage collection out of
 * the other sections' numbers. Adding such a section is one entry in `sections`: a function that
 * prepares (generates and stores the section's data) and resolves to the one that measures.
 *
 * run.ts calls `prepareSectionProcess(name)`, which starts the child (this file as its entry
 * point, with the section's name and a file to write its JSON result to) and resolves once the
 * child has prepared, to the function that has it measure. In between, the child and its store
 * process stay up and idle, holding the data: `npm run bench` prepares while the soak runs and
 * measures after it.
 */
/**
 * The query section's default size, as a share of the published dataset (100,000 orders and about
 * 1,000,000 events a year, the size P7-P9 define their cases on). Writing it takes about 2.5
 * minutes on a quiet 2-core machine; `BENCH_QUERY_SCALE=0.05` is a quicker run for development.
 */
export const DEFAULT_QUERY_SCALE = 1;

const sections = {
  adListing: (projectRoot: string, log: (line: string) => void): Promise<() => Promise<AdListingResult>> => {
    // dynalite runs in a process of its own by default. Measured on the 2-core VM with the full
    // dataset, one run each (2026-11-23, other work loading the machine at ~3): child process vs
    // in process, import 43.8 s vs 65.9 s, pageWithSeries p50 4.15 s vs 4.81 s, the small cases
    // within noise of each other (15/20 ms vs 12/21 ms p50), the whole section 186 s vs 243 s.
    // An in-process store shares one event loop with the handlers, so it can only ever use one core.
    const storeMode = (process.env.BENCH_AD_LISTING_STORE ?? 'child-process') as StoreMode;
    if (storeMode !== 'in-process' && storeMode !== 'child-process') throw new Error(`BENCH_AD_LISTING_STORE must be in-process or child-process`);
    // A smaller dataset for working on the benchmark itself; results.json records the size used.
    const ads = Number(process.env.BENCH_AD_LISTING_ADS ?? adListingDataset.ads);
    if (!Number.isInteger(ads) || ads < 1) throw new Error('BENCH_AD_LISTING_ADS must be a positive integer');
    const history = { ...adListingDataset.history, ads: Math.min(adListingDataset.history.ads, ads) };
    // BENCH_AD_LISTING_CASES=id,id: only those cases, for quicker runs while working on one of them.
    const only = process.env.BENCH_AD_LISTING_CASES?.split(',').map((id) => id.trim()).filter((id) => id !== '');
    const unknown = only?.filter((id) => !adListingCases.some((listingCase) => listingCase.id === id)) ?? [];
    if (unknown.length > 0) throw new Error(`BENCH_AD_LISTING_CASES names unknown cases: ${unknown.join(', ')}`);
    const cases = only ? adListingCases.filter((listingCase) => only.includes(listingCase.id)) : adListingCases;
    return prepareAdListing({ dataset: { ...adListingDataset, ads, history }, cases, projectRoot, storeMode, log });
  },
  query: (projectRoot: string, log: (line: string) => void): Promise<() => Promise<QueryBenchResult>> => {
    // BENCH_QUERY_SCALE shrinks orders and events together for quick runs; results.json records it.
    const scale = Number(process.env.BENCH_QUERY_SCALE ?? DEFAULT_QUERY_SCALE);
    const requests = Number(process.env.BENCH_QUERY_REQUESTS ?? 10);
    if (!(scale > 0) || !Number.isInteger(requests) || requests < 1) throw new Error('BENCH_QUERY_SCALE must be > 0 and BENCH_QUERY_REQUESTS a positive integer');
    return prepareQuery({
      dataset: { pixelId: 'px_bench_query', days: 365, end: new Date('2026-11-23T23:00:00Z'), scale },
      projectRoot,
      storeMode: 'child-process',
      requests,
      log,
    });
  },
} satisfies { [N in keyof SectionResults]: (projectRoot: string, log: (line: string) => void) => Promise<() => Promise<SectionResults[N]>> };

/** What each section's measurement returns. */
interface SectionResults {
  adListing: AdListingResult;
  query: QueryBenchResult;
}
export type SectionName = keyof SectionResults;
export type SectionResult<N extends SectionName> = SectionResults[N];

const thisFile = fileURLToPath(import.meta.url);

/**
 * Starts a section in a fresh Node process (with the same tsx loader as this one) and resolves
 * once it has prepared, to the function that has it measure and returns its result. Rejects when
 * the child fails or exits before it has prepared.
 */
export async function prepareSectionProcess<N extends SectionName>(name: N, projectRoot: string): Promise<() => Promise<SectionResult<N>>> {
  const scratchDir = mkdtempSync(join(tmpdir(), 'merchant-analytics-bench-section-'));
  const resultFile = join(scratchDir, 'result.json');
  const failure = (code: number | null) => new Error(`benchmark section ${name} failed (exit ${code ?? 'by signal'})`);
  // --expose-gc: a section may collect garbage between cases, so one case's leftovers do not
  // count in the next one's memory figures.
  const child = spawn(process.execPath, [...process.execArgv, '--expose-gc', thisFile, name, resultFile], {
    cwd: projectRoot,
    // The section's progress lines go straight to the console; the channel carries `prepared` and `measure`.
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (exitCode, signal) => resolve(signal ? null : exitCode));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      exited.then((code) => reject(failure(code)), reject);
    });
  } catch (error) {
    child.kill();
    rmSync(scratchDir, { recursive: true, force: true });
    throw error;
  }
  return async () => {
    try {
      child.send('measure');
      const code = await exited;
      if (code !== 0) throw failure(code);
      return JSON.parse(readFileSync(resultFile, 'utf8')) as SectionResult<N>;
    } finally {
      rmSync(scratchDir, { recursive: true, force: true });
    }
  };
}

async function childMain(name: string, resultFile: string): Promise<void> {
  if (!Object.hasOwn(sections, name)) throw new Error(`unknown benchmark section '${name}'`);
  const send = process.send?.bind(process);
  if (send === undefined) throw new Error('section-process.ts runs as a child of prepareSectionProcess, with an IPC channel');
  const projectRoot = fileURLToPath(new URL('..', import.meta.url));
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const measure = await sections[name as SectionName](projectRoot, log);
  // The generator's leftovers are collected now, so no collection of them lands in a measurement.
  globalThis.gc?.();
  await new Promise<void>((resolve) => {
    process.once('message', () => resolve());
    send('prepared');
  });
  writeFileSync(resultFile, JSON.stringify(await measure()));
}

if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const [name, resultFile] = process.argv.slice(2);
  // A runner that is gone (crashed, interrupted) never asks for the measurement: this process
  // ends, and its store process with it (a store exits when its stdin closes).
  const orphaned = () => process.exit(1);
  process.once('disconnect', orphaned);
  try {
    if (name === undefined || resultFile === undefined) throw new Error('usage: section-process.ts <section> <result file>');
    await childMain(name, resultFile);
  } catch (error) {
    console.error(`Benchmark section ${name ?? '?'} failed:`, error);
    process.exitCode = 1;
  } finally {
    // The channel would keep this process alive.
    process.off('disconnect', orphaned);
    if (process.connected) process.disconnect();
  }
}
