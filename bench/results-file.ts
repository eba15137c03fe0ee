import { readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { benchResultsSchema, RESULTS_SCHEMA_VERSION, type BenchResults, type CaseFigures } from './results-schema';

/**
 * Where the bench writes: bench/results.json, or `BENCH_RESULTS_FILE` (the schema test writes a
 * temporary file, so a developer's last full run is never overwritten by a quick one).
 */
export function resultsFilePath(projectRoot: string): string {
  const override = process.env.BENCH_RESULTS_FILE;
  return override ? resolve(override) : join(projectRoot, 'bench', 'results.json');
}

/** The header every results file starts with: what ran it, where. */
export function resultsHeader(): Pick<BenchResults, 'schemaVersion' | 'generatedAt' | 'node' | 'cpus'> & { cpuModel: string } {
  const processors = cpus();
  return {
    schemaVersion: RESULTS_SCHEMA_VERSION,
    generatedAt: new Date().toISOString(),
    node: process.version,
    cpus: processors.length,
    cpuModel: processors[0]?.model.trim() ?? 'unknown',
  };
}

export function writeResults(file: string, results: BenchResults): void {
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}

export interface SectionUpdate {
  /** The npm script that measured it, recorded in `merged`. */
  command: string;
  /** Which case ids belong to the section: its earlier cases and failures are replaced, not kept beside the new ones. */
  owns: (caseId: string) => boolean;
  cases: Record<string, CaseFigures>;
  failed?: Record<string, string>;
  /** Detail sections to set at the top level (`soak`, `functions`, `ingestion`). */
  details: Record<string, unknown>;
}

/**
 * A section run alone (`npm run bench:soak`, `bench:init`, `bench:ingestion`) merged into the
 * results file: the section's cases replace its earlier ones, every other case stays as the last
 * full run left it, and `merged` records which command updated the file when. A missing file, or
 * one of another schema version, is started afresh.
 */
export function mergeSectionIntoResults(file: string, update: SectionUpdate): BenchResults {
  let results: BenchResults;
  try {
    const written = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    // Checked whole, then kept in its own key order, so the file still reads header first.
    results = { ...written, ...benchResultsSchema.parse(written) };
  } catch {
    results = { ...resultsHeader(), cases: {}, failed: {} };
  }
  const keep = <T>(record: Record<string, T>) => Object.fromEntries(Object.entries(record).filter(([id]) => !update.owns(id)));
  const merged = Array.isArray(results.merged) ? (results.merged as unknown[]) : [];
  const next: BenchResults = {
    ...results,
    ...update.details,
    cases: { ...keep(results.cases), ...update.cases },
    failed: { ...keep(results.failed), ...update.failed },
    merged: [...merged, { command: update.command, at: new Date().toISOString() }],
  };
  writeResults(file, next);
  return next;
}
