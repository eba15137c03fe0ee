import { createHash } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { memoizeBounded } from '../memoize-bounded';
import { mapWithConcurrency } from '../map-with-concurrency';
import { isExpired } from './retention';
import type { StoredEvent } from '../tracking/stored-event';
import type { ItemKey } from './batch-get';
import { batchWrite } from './batch-write';
import { decodeEvents, encodeEvents } from './log-repository';
import { documentClient, tableName } from './dynamo-client';
import { queryAll } from './query-all';

/**
 * Tracking events as analytics reads them, written by the pipeline consumer (shared/pipeline).
 *
 * Items (see table-design.ts):
 * - page   `PK=PIXEL#<pixelId>#EV#<YYYY-MM-DD>#<shard>`  `SK=<entryId>`
 *          { entryId, acceptedAt, count, data: gzip(JSON of StoredEvent[]), superseded?: String Set of eventIds, ttl }
 *          the events of one log entry that happened on that UTC day, packed: one item per entry
 *          and day instead of one per event, which is what lets projection keep up with acceptance.
 * - marker `PK=PIXEL#<pixelId>#EVID#<eventId>`  `SK=EVID`
 *          { eventId, pos, pagePK, pageSK, supersedes: [{PK, SK}], orderId?, supersededOrders, ttl }:
 *          which delivery of a client eventId is the stored one (the first in log order, `pos`), in
 *          which page it is, and what later deliveries it won over.
 *
 * A page is rebuilt from its entry alone, so writing it again is harmless. A delivery that lost to
 * an earlier one (same eventId, earlier log position) stays in its page but is listed in the page's
 * `superseded` set, and readers skip it: marking is a set union, so it commutes with everything.
 * The 4 shards spread a busy pixel's day over 4 partitions; a day is 4 Queries.
 */
export const EVENT_SHARDS = 4;
const WRITE_CONCURRENCY = 8;
const READ_CONCURRENCY = 8;

/** A page's shard, a hash of its entry: asked once for each event of an entry, so recent answers are kept. */
export const shardOf = memoizeBounded((id: string): number => (createHash('sha256').update(id, 'utf8').digest()[0] as number) % EVENT_SHARDS);

export const dayOf = (timestamp: string) => timestamp.slice(0, 10);
export const eventPartitionKey = (pixelId: string, day: string, shard: number) => `PIXEL#${pixelId}#EV#${day}#${shard}`;
export const pageKey = (pixelId: string, day: string, entryId: string): ItemKey => ({
  PK: eventPartitionKey(pixelId, day, shardOf(entryId)),
  SK: entryId,
});

export interface EventPage {
  key: ItemKey;
  entryId: string;
  acceptedAt: string;
  events: StoredEvent[];
  /** eventIds in this page whose stored delivery is another, earlier one. */
  superseded: string[];
  ttl: number;
  /** `events` as `encodeEvents` packs them, when the caller holds that already (a page of a whole log entry). */
  data?: Uint8Array;
}

export async function writeEventPages(pages: readonly EventPage[]): Promise<void> {
  await batchWrite(
    pages.map((page) => ({
      PutRequest: {
        Item: {
          ...page.key,
          entryId: page.entryId,
          acceptedAt: page.acceptedAt,
          count: page.events.length,
          data: page.data ?? encodeEvents(page.events),
          // DynamoDB has no empty sets: an absent attribute is the empty set.
          ...(page.superseded.length > 0 ? { superseded: new Set(page.superseded) } : {}),
          ttl: page.ttl,
        },
      },
    })),
    { concurrency: WRITE_CONCURRENCY },
  );
}

/**
 * Lists eventIds as superseded in pages outside the batch being projected. ADD is a set union:
 * idempotent and commutative. On a page not written yet it leaves a stub without `data`, which
 * readers skip and the page's own write later replaces, keeping the set (its entry recomputes it).
 */
export async function markSuperseded(marks: ReadonlyArray<{ page: ItemKey; eventIds: string[] }>, ttl: number): Promise<void> {
  await mapWithConcurrency(marks, 8, ({ page, eventIds }) =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: page,
        // A stub (its entry never projected) still expires; a real page keeps its own ttl.
        UpdateExpression: 'ADD superseded :ids SET #ttl = if_not_exists(#ttl, :ttl)',
        ExpressionAttributeNames: { '#ttl': 'ttl' },
        ExpressionAttributeValues: { ':ids': new Set(eventIds), ':ttl': ttl },
      }),
    ),
  );
}

const DAY_MS = 86_400_000;

/** The UTC days from `from` to `to` (exclusive), as `YYYY-MM-DD`. */
export function daysBetween(from: Date, to: Date): string[] {
  const days: string[] = [];
  for (let day = Math.floor(from.getTime() / DAY_MS) * DAY_MS; day < to.getTime(); day += DAY_MS) days.push(new Date(day).toISOString().slice(0, 10));
  return days;
}

/**
 * The pages of a pixel on the given UTC days that hold events, each with its stored events only
 * (superseded deliveries and expired pages left out), in log order within a day.
 */
export async function readEventPages(
  pixelId: string,
  days: readonly string[],
  now: Date = new Date(),
): Promise<Array<{ entryId: string; acceptedAt: string; day: string; events: StoredEvent[]; /** Its superseded deliveries. */ lost: StoredEvent[] }>> {
  const partitions = days.flatMap((day) => Array.from({ length: EVENT_SHARDS }, (_, shard) => ({ day, pk: eventPartitionKey(pixelId, day, shard) })));
  const pages = await mapWithConcurrency(partitions, READ_CONCURRENCY, async ({ day, pk }) =>
    (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk } })).map((item) => ({ day, item })),
  );
  return pages
    .flat()
    .filter(({ item }) => item.data !== undefined && !isExpired(item, now))
    .map(({ day, item }) => {
      const superseded = (item.superseded as Set<string> | undefined) ?? new Set<string>();
      const all = decodeEvents(item.data as Uint8Array);
      return {
        entryId: item.SK as string,
        acceptedAt: item.acceptedAt as string,
        day,
        events: all.filter((event) => !superseded.has(event.eventId)),
        lost: all.filter((event) => superseded.has(event.eventId)),
      };
    })
    .sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : a.entryId < b.entryId ? -1 : a.entryId > b.entryId ? 1 : 0));
}

/**
 * Every delivery in one page (superseded ones too) with its `acceptedAt`, or undefined when the
 * page holds none (absent, or a stub its entry has not written yet).
 */
export async function readEventPage(pixelId: string, day: string, entryId: string): Promise<{ acceptedAt: string; events: StoredEvent[] } | undefined> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: pageKey(pixelId, day, entryId), ConsistentRead: true }));
  if (!Item || Item.data === undefined) return undefined;
  return { acceptedAt: Item.acceptedAt as string, events: decodeEvents(Item.data as Uint8Array) };
}

/**
 * The pixel's stored events with `from <= timestamp < to`, oldest first (ties by event id): each
 * client eventId once, as first delivered. Reads the pages of every UTC day in the range.
 */
export async function readEvents(pixelId: string, from: Date, to: Date): Promise<StoredEvent[]> {
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw new RangeError('readEvents needs valid dates');
  if (from >= to) return [];
  const fromKey = from.toISOString();
  const toKey = to.toISOString();
  return (await readEventPages(pixelId, daysBetween(from, to)))
    .flatMap((page) => page.events)
    .filter((event) => event.timestamp >= fromKey && event.timestamp < toKey)
    .sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
}
