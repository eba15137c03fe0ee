import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEDUP_WINDOW_DAYS, readEventCounts, readEvents } from '../../shared/analytics/store/event-facts';
import { eventsTableProjector } from '../../shared/analytics/store/events-table-projector';
import { liveFiles } from '../../shared/analytics/store/partitions';
import type { ProjectedEntry } from '../../shared/pipeline/projector';
import type { StoredEvent } from '../../shared/tracking/stored-event';
import { useFreshTable } from '../support/fresh-table';
import { ANALYTICS_STORES, useDirectoryAnalyticsStore } from '../support/s3-server';

/*
 * The events table of the analytics store: every delivery written, the first delivery of an
 * eventId in the log read as the event. Checked against a plain-JS statement of the same rule
 * over random deliveries, and run on both stores (a directory, and S3 through the SDK).
 */
const DAY = 86_400_000;
const START = Date.parse('2026-03-01T00:00:00Z');

function event(eventId: string, at: number, overrides: Partial<StoredEvent> = {}): StoredEvent {
  return {
    eventId,
    eventIdSource: 'client',
    name: 'page_view',
    standard: true,
    timestamp: new Date(at).toISOString(),
    receivedAt: new Date(at).toISOString(),
    ...overrides,
  };
}

const entry = (entryId: string, events: StoredEvent[], lost: StoredEvent[] = []): ProjectedEntry => ({ entryId, acceptedAt: new Date(START).toISOString(), events, superseded: [], lost });

async function project(pixelId: string, entries: ProjectedEntry[]): Promise<void> {
  await eventsTableProjector.project({ pixelId, entries, orders: [] });
}

beforeAll(async () => {
  await useFreshTable();
});
afterAll(useDirectoryAnalyticsStore);

describe.each(ANALYTICS_STORES)('the events table in $store', ({ store, use }) => {
  const pixel = (name: string) => `px_${store.replace(/\W/g, '')}_${name}`;
  beforeAll(use);

  it('reads back every event of a range with its name, UTMs and identity keys, one file per UTC date', async () => {
    const pixelId = pixel('read');
    await project(pixelId, [
      entry('01KA0000000000000000000001', [
        event('e1', START + 3_600_000, { utm: { utm_source: 'google', utm_medium: 'cpc', utm_campaign: 'spring' }, user: { userIds: ['u1'], emailHashes: ['a'.repeat(64)] }, click: { fbp: 'fb.1.2' } }),
        event('e2', START + DAY + 60_000, { name: 'purchase', standard: true }),
      ]),
    ]);
    expect((await liveFiles(pixelId, 'events', '2026-03-01', '2026-03-02')).map((partition) => [partition.date, partition.files.length])).toEqual([
      ['2026-03-01', 1],
      ['2026-03-02', 1],
    ]);
    const events = await readEvents(pixelId, { start: START, end: START + 2 * DAY });
    expect(events.sort((a, b) => a.at - b.at)).toEqual([
      { eventId: 'e1', at: START + 3_600_000, name: 'page_view', utmSource: 'google', utmMedium: 'cpc', utmCampaign: 'spring', identities: ['u:u1', `e:${'a'.repeat(64)}`, 'f:fb.1.2'] },
      { eventId: 'e2', at: START + DAY + 60_000, name: 'purchase', utmSource: null, utmMedium: null, utmCampaign: null, identities: [] },
    ]);
    // The range is [start, end): the second day alone holds e2 only.
    expect((await readEvents(pixelId, { start: START + DAY, end: START + 2 * DAY })).map((row) => row.eventId)).toEqual(['e2']);
    expect(await readEventCounts(pixelId, { start: START, end: START + 2 * DAY }, false)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ at: START + 3_600_000, name: 'page_view', utmSource: null, count: 1 }),
        expect.objectContaining({ at: START + DAY, name: 'purchase', count: 1 }),
      ]),
    );
  });

  it('writing the same entries again adds no file and no event; a range without files is empty', async () => {
    const pixelId = pixel('again');
    const entries = [entry('01KA0000000000000000000002', [event('a', START), event('b', START + 10)])];
    await project(pixelId, entries);
    await project(pixelId, entries);
    expect((await liveFiles(pixelId, 'events', '2026-03-01', '2026-03-01'))[0]!.files).toHaveLength(1);
    expect((await readEvents(pixelId, { start: START, end: START + DAY })).map((row) => row.eventId).sort()).toEqual(['a', 'b']);
    expect(await readEvents(pixelId, { start: START + 30 * DAY, end: START + 31 * DAY })).toEqual([]);
  });

  it('counts an eventId once: its first delivery in the log, even from another file or a neighbouring day', async () => {
    const pixelId = pixel('dedup');
    // The later delivery is projected first, in a batch of its own; the earlier one, a day before, then.
    await project(pixelId, [entry('01KA0000000000000000000009', [event('dup', START + DAY + 5, { name: 'add_to_cart' })])]);
    await project(pixelId, [entry('01KA0000000000000000000008', [event('dup', START + 5, { name: 'page_view' })])]);
    // A larger batch holding an entry already written: its deliveries count once.
    await project(pixelId, [entry('01KA0000000000000000000008', [event('dup', START + 5, { name: 'page_view' })]), entry('01KA000000000000000000000A', [event('other', START + 7)])]);
    expect((await readEvents(pixelId, { start: START, end: START + 2 * DAY })).map((row) => [row.eventId, row.name]).sort()).toEqual([
      ['dup', 'page_view'],
      ['other', 'page_view'],
    ]);
    // The second day alone: the first delivery of `dup` is on the day before, so the day has none of it.
    expect(await readEvents(pixelId, { start: START + DAY, end: START + 2 * DAY })).toEqual([]);
  });

  it('matches the rule stated plainly, over random deliveries and ranges (property)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ entry: fc.integer({ min: 1, max: 6 }), eventId: fc.constantFrom('p', 'q', 'r', 's', 't'), day: fc.integer({ min: 0, max: 20 }), name: fc.constantFrom('page_view', 'purchase') }),
          { minLength: 1, maxLength: 25 },
        ),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 1, max: 5 }),
        async (deliveries, fromDay, days) => {
          const pixelId = pixel(`prop${run++}`);
          // An entry holds an eventId once (the consumer keeps the first delivery within a request).
          const byEntry = new Map<number, Map<string, StoredEvent>>();
          for (const delivery of deliveries) {
            const events = byEntry.get(delivery.entry) ?? new Map<string, StoredEvent>();
            if (!events.has(delivery.eventId)) events.set(delivery.eventId, event(delivery.eventId, START + delivery.day * DAY + delivery.entry, { name: delivery.name }));
            byEntry.set(delivery.entry, events);
          }
          const entryId = (n: number) => `01KB${String(n).padStart(22, '0')}`;
          // Each entry projected in a batch of its own, in a shuffled order.
          for (const n of [...byEntry.keys()].sort((a, b) => ((a * 7) % 5) - ((b * 7) % 5))) await project(pixelId, [entry(entryId(n), [...byEntry.get(n)!.values()])]);

          const range = { start: START + fromDay * DAY, end: START + (fromDay + days) * DAY };
          // The rule: a delivery is a repeat when an earlier entry delivered its eventId within the window of it.
          const all = [...byEntry].flatMap(([n, events]) => [...events.values()].map((delivered) => ({ n, delivered, at: Date.parse(delivered.timestamp) })));
          const events = all.filter((later) => !all.some((earlier) => earlier.delivered.eventId === later.delivered.eventId && earlier.n < later.n && Math.abs(earlier.at - later.at) <= DEDUP_WINDOW_DAYS * DAY));
          const expected = events.filter(({ at }) => at >= range.start && at < range.end).map(({ delivered }) => `${delivered.eventId}:${delivered.name}:${delivered.timestamp}`);
          const actual = (await readEvents(pixelId, range)).map((row) => `${row.eventId}:${row.name}:${new Date(row.at).toISOString()}`);
          expect(actual.sort()).toEqual(expected.sort());
        },
      ),
      { numRuns: 15 },
    );
  });
});
