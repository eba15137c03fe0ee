import { describe, expect, it } from 'vitest';
import { BatchFactory, ingestionCases, lastLogRecord, type IngestionResult, type ProjectionResult } from '../../bench/ingestion';

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

describe('the ingestion bench', () => {
  it("reports a multi-line JSON error record whole, on one line, not its closing brace", () => {
    const output = 'listening\n{\n  "level": "ERROR",\n  "message": "drain failed",\n  "error": {\n    "name": "ValidationException",\n    "message": "Item size to update has exceeded the maximum allowed size"\n  }\n}\n';
    expect(lastLogRecord(output)).toBe('{ "level": "ERROR", "message": "drain failed", "error": { "name": "ValidationException", "message": "Item size to update has exceeded the maximum allowed size" } }');
    expect(lastLogRecord('{"level":"ERROR","message":"one"}\n{"level":"ERROR","message":"two"}\n')).toBe('{"level":"ERROR","message":"two"}');
    expect(lastLogRecord('Error: boom\n    at drain (drain.ts:1:1)\n')).toBe('Error: boom at drain (drain.ts:1:1)');
    expect(lastLogRecord('  \n')).toBeUndefined();
  });

  it("sends a storefront's traffic: many small visitors, a minority returning and signed in, 10 % repeats", () => {
    const factory = new BatchFactory();
    const batches = Array.from({ length: 200 }, () => (JSON.parse(factory.next()) as { events: Array<{ eventId: string; name: string; user: { anonymousId: string; emails?: string[] }; click: { fbp: string } }> }).events);
    expect(batches.every((events) => events.length === 100)).toBe(true);
    const ids = batches.flat().map((event) => event.eventId);
    expect(ids.length - new Set(ids).size).toBe(199 * 10);
    expect(factory.duplicates).toBe(199 * 10);
    const fresh = batches.flatMap((events) => events.slice(0, 90));
    const browsers = new Map<string, Set<string>>();
    for (const event of fresh) browsers.set(event.click.fbp, (browsers.get(event.click.fbp) ?? new Set()).add(event.user.anonymousId));
    // One browser is one anonymous id and one fbp; no identifier is shared by the whole run.
    expect([...browsers.values()].every((anonymousIds) => anonymousIds.size === 1)).toBe(true);
    expect(browsers.size).toBeGreaterThan(fresh.length / 10);
    const signedIn = fresh.filter((event) => event.name !== 'purchase' && event.user.emails).length / fresh.filter((event) => event.name !== 'purchase').length;
    expect(signedIn).toBeGreaterThan(0.15);
    expect(signedIn).toBeLessThan(0.35);
    const purchases = fresh.filter((event) => event.name === 'purchase').length;
    expect(purchases).toBeGreaterThan(200 * 0.5);
    expect(purchases).toBeLessThan(200 * 5);
  });
});
