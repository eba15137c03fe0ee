import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeSectionIntoResults } from '../../bench/results-file';
import { benchResultsSchema, missingCases, parseBenchResults, requiredCases } from '../../bench/results-schema';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
  file = join(dir, 'results.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const read = () => benchResultsSchema.parse(JSON.parse(readFileSync(file, 'utf8')));

/** A complete file: every required case with its figures, as a full run writes it. */
function completeFile() {
  const cases = Object.fromEntries(Object.entries(requiredCases()).map(([id, figures]) => [id, Object.fromEntries(figures.map((name) => [name, 1]))]));
  return { schemaVersion: 1, generatedAt: '2026-11-24T10:00:00.000Z', node: 'v24.9.0', cpus: 2, cases, failed: {}, soak: { bounded: true } };
}

describe('the results file schema', () => {
  it('accepts a complete file and names what an incomplete one lacks', () => {
    expect(parseBenchResults(completeFile()).cases['firstStart']).toEqual({ ms: 1 });
    const file = completeFile();
    delete file.cases['init.getAccount'];
    delete file.cases['ingest.project']!.lagP99Ms;
    expect(missingCases(benchResultsSchema.parse(file))).toEqual({
      'init.getAccount': 'neither measured nor listed as failed',
      'ingest.project': 'figures missing: lagP99Ms',
    });
    expect(() => parseBenchResults(file)).toThrow(/init\.getAccount/);
  });

  it('counts a case listed under failed, with its reason, as accounted for', () => {
    const file = completeFile();
    delete file.cases['queryAds.page500x10x90x90'];
    expect(missingCases(benchResultsSchema.parse({ ...file, failed: { 'queryAds.page500x10x90x90': 'answered 503' } }))).toEqual({});
  });

  it('refuses another schema version, the old nested cpus and figures that are not numbers', () => {
    expect(() => benchResultsSchema.parse({ ...completeFile(), schemaVersion: 2 })).toThrow();
    const { cpus: _cpus, ...withoutCpus } = completeFile();
    expect(() => benchResultsSchema.parse({ ...withoutCpus, machine: { cpus: 2 } })).toThrow();
    expect(() => benchResultsSchema.parse({ ...completeFile(), cases: { soak: { rssEndMb: '12' } } })).toThrow();
    expect(() => benchResultsSchema.parse({ ...completeFile(), cases: { soak: { rssEndMb: null } } })).toThrow();
  });
});

describe('a section run alone (bench:soak, bench:init, bench:ingestion)', () => {
  it('replaces its own cases and failures, keeps every other case, and records the merge', () => {
    const full = { ...completeFile(), failed: { 'ingest.project': 'drain behind' } };
    delete full.cases['ingest.project'];
    writeFileSync(file, JSON.stringify(full));
    mergeSectionIntoResults(file, {
      command: 'bench:ingestion',
      owns: (id) => id.startsWith('ingest.'),
      cases: { 'ingest.accept': { eventsPerSec: 5, batchP50Ms: 2, batchP99Ms: 3 }, 'ingest.project': { eventsPerSec: 4, lagP50Ms: 1, lagP99Ms: 2 } },
      details: { ingestion: { batchSize: 100 } },
    });
    const merged = read();
    expect(merged.cases['ingest.accept']).toEqual({ eventsPerSec: 5, batchP50Ms: 2, batchP99Ms: 3 });
    expect(merged.cases['ingest.projectCore']).toBeUndefined();
    expect(merged.failed).toEqual({});
    expect(merged.cases['init.getAccount']).toEqual(full.cases['init.getAccount']);
    expect(merged.generatedAt).toBe(full.generatedAt);
    expect(merged.ingestion).toEqual({ batchSize: 100 });
    expect(merged.soak).toEqual({ bounded: true });
    expect(merged.merged).toEqual([{ command: 'bench:ingestion', at: expect.any(String) }]);
    expect(missingCases(merged)).toEqual({});
  });

  it('lists a case of the section that now fails under failed, not its stale figures', () => {
    writeFileSync(file, JSON.stringify(completeFile()));
    mergeSectionIntoResults(file, {
      command: 'bench:ingestion',
      owns: (id) => id.startsWith('ingest.'),
      cases: { 'ingest.accept': { eventsPerSec: 5, batchP50Ms: 2, batchP99Ms: 3 } },
      failed: { 'ingest.project': 'drain behind' },
      details: {},
    });
    const merged = read();
    expect(merged.cases['ingest.project']).toBeUndefined();
    expect(merged.failed).toEqual({ 'ingest.project': 'drain behind' });
  });

  it('starts a file of schema version 1 when there is none, or one of the old shape', () => {
    writeFileSync(file, JSON.stringify({ generatedAt: '2026-11-20T00:00:00Z', machine: { cpus: 2 }, soak: { rssEndMb: 1 }, cases: {} }));
    mergeSectionIntoResults(file, { command: 'bench:soak', owns: (id) => id === 'soak', cases: { soak: { rssStartMb: 1, rssPeakMb: 3, rssEndMb: 2 } }, details: { soak: { bounded: true } } });
    const fresh = read();
    expect(fresh).toMatchObject({ schemaVersion: 1, node: process.version, cases: { soak: { rssStartMb: 1, rssPeakMb: 3, rssEndMb: 2 } }, failed: {} });
    expect(fresh.machine).toBeUndefined();
    rmSync(file);
    mergeSectionIntoResults(file, { command: 'bench:soak', owns: (id) => id === 'soak', cases: { soak: { rssStartMb: 1, rssPeakMb: 3, rssEndMb: 2 } }, details: {} });
    expect(read().cases).toEqual({ soak: { rssStartMb: 1, rssPeakMb: 3, rssEndMb: 2 } });
  });
});
