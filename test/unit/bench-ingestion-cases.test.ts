import { describe, expect, it } from 'vitest';
import { ingestionCases, type IngestionResult, type ProjectionResult } from '../../bench/ingestion';

const cpu = { serverSeconds: 1, storeSeconds: 1, loadAverage: 1 };
const projection = (eventsPerSec: number, readModels: boolean): ProjectionResult => ({
  offeredEventsPerSec: 6000,
  acceptedEventsPerSec: 6000,
  seconds: 20,
  events: 120_000,
  duplicates: 11_990,
  eventsPerSec,
  lagP50Ms: 300,
  lagP99Ms: 900,
  lagMaxMs: 1000,
  caughtUp: true,
  unprojectedEntries: 0,
  readModels,
  retries: 0,
  cpu,
});
const accept: IngestionResult['accept'] = { batches: 400, events: 40_000, concurrency: 8, seconds: 2, eventsPerSec: 20_000, batchP50Ms: 30, batchP99Ms: 80, retries: 0, cpu };

describe('ingestion cases in results.json', () => {
  it('are ingest.accept {eventsPerSec, batchP50Ms, batchP99Ms} and ingest.project / ingest.projectCore {eventsPerSec, lagP50Ms, lagP99Ms}', () => {
    const cases = ingestionCases({ batchSize: 100, duplicateShare: 0.1, accept, project: projection(5000, true), projectCore: projection(7000, false) });
    expect(cases).toEqual({
      'ingest.accept': { eventsPerSec: 20_000, batchP50Ms: 30, batchP99Ms: 80 },
      'ingest.project': { eventsPerSec: 5000, lagP50Ms: 300, lagP99Ms: 900 },
      'ingest.projectCore': { eventsPerSec: 7000, lagP50Ms: 300, lagP99Ms: 900 },
    });
  });

  it('keep ingest.project when the read-model case measured nothing at all', () => {
    const cases = ingestionCases({ batchSize: 100, duplicateShare: 0.1, accept, project: { failed: 'the server exited', readModels: true }, projectCore: projection(7000, false) });
    expect(cases['ingest.project']).toEqual({ eventsPerSec: 0 });
  });
});
