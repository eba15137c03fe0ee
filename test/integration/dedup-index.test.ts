import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectLogEntries } from '../../shared/pipeline/project-log-entries';
import { RetryableFault } from '../../shared/faults';
import { DEDUP_BUCKETS, PAGE_MAX_BYTES, dedupBucketOf, readDedupIndex, writeDedupIndex, type EventMarker } from '../../shared/store/dedup-index';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { pageKey, readEvents } from '../../shared/store/event-repository';
import type { LogEntry } from '../../shared/store/log-repository';
import type { StoredEvent } from '../../shared/tracking/stored-event';
import { useFreshTable } from '../support/fresh-table';

/** The packed eventId dedup index: its size bound, its retention and its guard against a second writer. */
beforeAll(async () => {
  await useFreshTable();
});

const DAY_MS = 86_400_000;
const event = (eventId: string, timestamp: string): StoredEvent => ({ eventId, eventIdSource: 'client', name: 'page_view', standard: true, timestamp, receivedAt: timestamp });
let sequence = 0;
const entry = (pixelId: string, acceptedAt: string, events: StoredEvent[]): LogEntry => ({
  pixelId,
  entryId: `01JDEDUP${String(sequence++).padStart(6, '0')}`,
  acceptedAt,
  events,
});
const pageKeyOf = (pixelId: string) => (day: string, entryId: string) => pageKey(pixelId, day, entryId);

async function indexPages(pixelId: string) {
  const pages: Array<Record<string, unknown>> = [];
  for (let bucket = 0; bucket < DEDUP_BUCKETS; bucket++) {
    const { Items = [] } = await documentClient.send(
      new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `PIXEL#${pixelId}#EVIDX#${String(bucket).padStart(2, '0')}` } }),
    );
    pages.push(...Items);
  }
  return pages;
}

describe('the eventId dedup index', () => {
  it('packs many eventIds into few items, splits a bucket into pages under the bound, and finds every one', async () => {
    const pixelId = 'px_dedup_many';
    // 12,000 random ids: about 375 a bucket, and far more in the one bucket filled on purpose below.
    const ids = Array.from({ length: 12_000 }, () => randomUUID());
    const crowded = Array.from({ length: 100_000 }, () => randomUUID()).filter((id) => dedupBucketOf(id) === 7).slice(0, 3_000);
    const all = [...ids, ...crowded];
    const acceptedAt = '2026-03-12T00:00:00.000Z';
    const entries = Array.from({ length: Math.ceil(all.length / 100) }, (_, i) => entry(pixelId, acceptedAt, all.slice(i * 100, i * 100 + 100).map((id) => event(id, '2026-03-12T10:00:00.000Z'))));
    await projectLogEntries(pixelId, entries, { projectors: [] });

    const pages = await indexPages(pixelId);
    expect(pages.length).toBeLessThan(all.length / 100);
    for (const page of pages) expect((page.data as Uint8Array).length).toBeLessThanOrEqual(PAGE_MAX_BYTES);
    expect(pages.filter((page) => String(page.PK).endsWith('#EVIDX#07')).length).toBeGreaterThan(1);
    expect(pages.reduce((sum, page) => sum + (page.count as number), 0)).toBe(all.length);

    const index = await readDedupIndex(pixelId, all, pageKeyOf(pixelId));
    expect(index.markers.size).toBe(all.length);

    // Every id sent again, in one later entry: each is a duplicate, stored once.
    await projectLogEntries(pixelId, [entry(pixelId, acceptedAt, crowded.slice(0, 100).map((id) => event(id, '2026-03-12T11:00:00.000Z')))], { projectors: [] });
    const stored = await readEvents(pixelId, new Date('2026-03-12T00:00:00Z'), new Date('2026-03-13T00:00:00Z'));
    expect(stored).toHaveLength(all.length);
    expect(stored.filter((stored) => stored.timestamp === '2026-03-12T11:00:00.000Z')).toHaveLength(0);
  }, 120_000);

  it('deduplicates within DEDUP_RETENTION_DAYS of the stored delivery and stores a later copy as a new event', async () => {
    const pixelId = 'px_dedup_retention';
    const first = Date.parse('2026-03-01T00:00:00Z');
    const at = (days: number) => new Date(first + days * DAY_MS).toISOString();
    await projectLogEntries(pixelId, [entry(pixelId, at(0), [event('kept', at(0)), event('late', at(0))])], { projectors: [] });
    // Within 7 days: a duplicate. After: a new event, and the expired entry is dropped from its page.
    await projectLogEntries(pixelId, [entry(pixelId, at(6.9), [event('kept', at(6.9))])], { projectors: [] });
    await projectLogEntries(pixelId, [entry(pixelId, at(7.5), [event('late', at(7.5))])], { projectors: [] });
    const stored = await readEvents(pixelId, new Date(at(-1)), new Date(at(10)));
    expect(stored.map((stored) => `${stored.eventId}@${stored.timestamp}`)).toEqual([`kept@${at(0)}`, `late@${at(0)}`, `late@${at(7.5)}`]);
    const late = (await readDedupIndex(pixelId, ['late'], pageKeyOf(pixelId))).markers.get('late');
    expect(late?.pos.startsWith(`01JDEDUP${String(sequence - 1).padStart(6, '0')}#`)).toBe(true);
  });

  it('refuses to write pages that changed since they were read, so a second consumer cannot lose entries', async () => {
    const pixelId = 'px_dedup_race';
    const marker = (eventId: string): EventMarker => ({ eventId, pos: `01JRACE#000`, page: pageKey(pixelId, '2026-03-12', '01JRACE'), supersedes: [], supersededOrders: [], ttl: 1_900_000_000 });
    const ids = ['race-a', 'race-b'].map((prefix) => Array.from({ length: 200 }, (_, i) => `${prefix}-${i}`).find((id) => dedupBucketOf(id) === 3)!);
    const stale = await readDedupIndex(pixelId, ids, pageKeyOf(pixelId));
    const fresh = await readDedupIndex(pixelId, ids, pageKeyOf(pixelId));
    await writeDedupIndex(fresh, [marker(ids[0]!)], 0);
    await expect(writeDedupIndex(stale, [marker(ids[1]!)], 0)).rejects.toBeInstanceOf(RetryableFault);
    const again = await readDedupIndex(pixelId, ids, pageKeyOf(pixelId));
    expect([...again.markers.keys()]).toEqual([ids[0]]);
  });

  it('writes a batch\'s pages all or none: one page changed since it was read leaves every other page as it was', async () => {
    const pixelId = 'px_dedup_whole';
    const marker = (eventId: string): EventMarker => ({ eventId, pos: `01JWHOLE#000`, page: pageKey(pixelId, '2026-03-12', '01JWHOLE'), supersedes: [], supersededOrders: [], ttl: 1_900_000_000 });
    // An eventId in bucket 0 stored first, and one for bucket 0 that another consumer writes while the batch below runs.
    const inBucket = (bucket: number, prefix: string) => Array.from({ length: 1_000 }, (_, i) => `${prefix}-${i}`).find((id) => dedupBucketOf(id) === bucket)!;
    const ids = Array.from({ length: 8 }, (_, bucket) => inBucket(bucket, 'whole'));
    const rival = inBucket(0, 'rival');
    const first = await readDedupIndex(pixelId, [...ids, rival], pageKeyOf(pixelId));
    await writeDedupIndex(first, [marker(ids[0]!)], 0);
    // A batch with a new eventId in bucket 0 (whose page the rival rewrites meanwhile) and one in each other bucket.
    const late = inBucket(0, 'late');
    const batch = [late, ...ids.slice(1)];
    const stale = await readDedupIndex(pixelId, batch, pageKeyOf(pixelId));
    const other = await readDedupIndex(pixelId, [rival], pageKeyOf(pixelId));
    await writeDedupIndex(other, [marker(rival)], 0);
    const before = await indexPages(pixelId);

    await expect(writeDedupIndex(stale, batch.map(marker), 0)).rejects.toBeInstanceOf(RetryableFault);
    expect(await indexPages(pixelId)).toEqual(before);
    const again = await readDedupIndex(pixelId, [...ids, rival, late], pageKeyOf(pixelId));
    expect([...again.markers.keys()].sort()).toEqual([ids[0]!, rival].sort());
  });

  it('reads a page another process wrote anew under a key and version this process has cached (its stamp differs)', async () => {
    const pixelId = 'px_dedup_stamp';
    const [mine, theirs] = ['mine', 'theirs'].map((prefix) => Array.from({ length: 200 }, (_, i) => `${prefix}-${i}`).find((id) => dedupBucketOf(id) === 5)!);
    await projectLogEntries(pixelId, [entry(pixelId, '2026-03-12T00:00:00.000Z', [event(mine!, '2026-03-12T10:00:00.000Z')])], { projectors: [] });
    // Cached here at version 1. Then the page expires (TTL deletes it) and another consumer creates it again, at version 1 too.
    const [page] = (await indexPages(pixelId)).filter((item) => String(item.PK).endsWith('#EVIDX#05'));
    expect(page?.version).toBe(1);
    await documentClient.send(new DeleteCommand({ TableName: tableName(), Key: { PK: page!.PK, SK: page!.SK } }));
    const data = gzipSync(JSON.stringify([[theirs, { p: '01JTHEIRS#000', d: '2026-03-12', t: 1_900_000_000 }]]));
    await documentClient.send(new PutCommand({ TableName: tableName(), Item: { PK: page!.PK, SK: page!.SK, data, count: 1, version: 1, stamp: 'another-process', ttl: 1_900_000_000 } }));

    const index = await readDedupIndex(pixelId, [mine!, theirs!], pageKeyOf(pixelId));
    expect([...index.markers.keys()]).toEqual([theirs]);
    expect(index.markers.get(theirs!)?.pos).toBe('01JTHEIRS#000');
  });
});
