/**
 * Read cost of the people measures (`events.visitors`, `events.conversion_rate`), the only queries
 * that read the per-event facts: 180 days of events with identities (the query bench's 1,000,000
 * events a year, 2,740 a day), then a 90-day day-granularity query with its comparison, through
 * `runQuery` on a store in its own process. `node --import tsx bench/event-facts-read.ts [runs]`.
 */
import { ensureTable } from '../lib/local/dynamodb';
import { localConfig, useLocalServices } from '../lib/local/local-config';
import { startBenchStore } from './bench-store';
import { summarize } from './stats';

const EVENTS_PER_DAY = 2_740;
const DAYS = 180;
const END = Date.parse('2026-11-23T00:00:00Z');
const DAY_MS = 86_400_000;

const store = await startBenchStore('child-process');
try {
  const config = { ...localConfig(), tableName: 'event-facts-read' };
  await ensureTable(store.endpoint, config.tableName);
  useLocalServices(config, { dynamodb: store.endpoint });
  // Imported only now: the repositories build their SDK client at import, after useLocalServices.
  const { writeInitialReadModels } = await import('../shared/store/query-read-models');
  const { runQuery } = await import('../shared/analytics/query-service');
  const { queryRequestSchema } = await import('../shared/schemas/query-measures');
  const { largeDayEvent } = await import('../test/support/large-day-events');
  const events = [];
  for (let day = 0; day < DAYS; day++) {
    for (let i = 0; i < EVENTS_PER_DAY; i++) events.push(largeDayEvent(END - (DAYS - day) * DAY_MS, i, 900));
  }
  await writeInitialReadModels('px_facts', [], events);
  const request = queryRequestSchema.parse({
    pixelId: 'px_facts',
    measures: ['events.visitors', 'events.conversion_rate'],
    granularity: 'day',
    dateRange: { start: '2026-08-25', end: '2026-11-22' },
  });
  const runs = Number(process.argv[2] ?? 15);
  const times: number[] = [];
  for (let run = 0; run < runs + 2; run++) {
    const started = performance.now();
    await runQuery('px_facts', request);
    if (run >= 2) times.push(performance.now() - started);
  }
  const stats = summarize(times);
  console.log(JSON.stringify({ events: events.length, runs, ...stats }));
} finally {
  await store.close();
}
