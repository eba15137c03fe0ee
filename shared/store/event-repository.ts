import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../map-with-concurrency';
import type { StoredEvent } from '../tracking/stored-event';
import { batchGet, type ItemKey } from './batch-get';
import { batchWrite } from './batch-write';
import { documentClient, tableName } from './dynamo-client';
import { queryAll } from './query-all';

/**
 * Tracking events, laid out for the analytics that read them by pixel and time.
 *
 * Items (see table-design.ts):
 * - event  `PK=PIXEL#<pixelId>#EV#<YYYY-MM-DD>#<shard>`  `SK=<timestamp>#<eventId>`
 *          { eventId, name, timestamp, event: JSON of StoredEvent }
 * - marker `PK=PIXEL#<pixelId>#EVID#<eventId>`  `SK=EVID`  { eventPK, eventSK, timestamp, receivedAt }
 *
 * One partition per pixel, UTC day and shard: a time range is one Query per day and shard with the
 * sort key between two instants, never touching another pixel's or day's events. The 4 shards
 * spread a busy pixel's writes over 4 partitions; the shard is a hash of the event id, so it is
 * stable across retries. `timestamp` is always `toISOString()` (fixed width), so text order is
 * time order.
 *
 * The event is JSON text, not DynamoDB attributes: it is only read whole, and text keeps custom
 * values exact (DynamoDB numbers stop at 1e126 and drop empty sets).
 *
 * Idempotency without transactions: an event with a client `eventId` first claims its marker with
 * a conditional put. The marker records where the event is (and its time, which may have defaulted
 * to the receipt time). A later delivery of the same id loses the claim, reads the marker, and
 * finds the event there: it is kept as first stored. Marker first, event second, so a crash
 * between the two leaves a marker without its event, and the retry writes the event at the
 * marker's key: never a second item.
 */
export const EVENT_SHARDS = 4;
const MARKER_SK = 'EVID';
/** Conditional puts cannot be batched; this many run at once, enough to overlap round trips. */
const MARKER_CONCURRENCY = 25;
const WRITE_CONCURRENCY = 4;
const READ_CONCURRENCY = 8;

export function shardOf(eventId: string): number {
  return (createHash('sha256').update(eventId, 'utf8').digest()[0] as number) % EVENT_SHARDS;
}

const dayOf = (timestamp: string) => timestamp.slice(0, 10);
export const eventPartitionKey = (pixelId: string, day: string, shard: number) => `PIXEL#${pixelId}#EV#${day}#${shard}`;
const eventKey = (pixelId: string, event: Pick<StoredEvent, 'eventId' | 'timestamp'>): ItemKey => ({
  PK: eventPartitionKey(pixelId, dayOf(event.timestamp), shardOf(event.eventId)),
  SK: `${event.timestamp}#${event.eventId}`,
});
const markerKey = (pixelId: string, eventId: string): ItemKey => ({ PK: `PIXEL#${pixelId}#EVID#${eventId}`, SK: MARKER_SK });

interface Marker {
  eventPK: string;
  eventSK: string;
  timestamp: string;
  receivedAt: string;
}

/**
 * Stores events, each distinct `eventId` once (the first of a repeated id in one call wins).
 * Returns the events as stored, in input order: an id stored before comes back as it was first
 * stored, whatever this delivery said. Throws on a storage failure; calling again with the same
 * client ids completes the work without duplicating any of them.
 */
export async function storeEvents(pixelId: string, events: readonly StoredEvent[]): Promise<StoredEvent[]> {
  const byId = new Map<string, StoredEvent>();
  for (const event of events) if (!byId.has(event.eventId)) byId.set(event.eventId, event);

  const located = new Map<string, { event: StoredEvent; key: ItemKey }>();
  for (const event of byId.values()) located.set(event.eventId, { event, key: eventKey(pixelId, event) });

  const claimed = [...byId.values()].filter((event) => event.eventIdSource === 'client');
  const alreadyClaimed = (
    await mapWithConcurrency(claimed, MARKER_CONCURRENCY, async (event) => ((await claimMarker(pixelId, event)) ? undefined : event.eventId))
  ).filter((eventId): eventId is string => eventId !== undefined);
  const stored = new Set<string>();
  if (alreadyClaimed.length > 0) {
    for (const item of await batchGet(alreadyClaimed.map((eventId) => markerKey(pixelId, eventId)))) {
      const marker = item as unknown as Marker & { eventId: string };
      const entry = located.get(marker.eventId);
      if (!entry) continue;
      entry.event = { ...entry.event, timestamp: marker.timestamp, receivedAt: marker.receivedAt };
      entry.key = { PK: marker.eventPK, SK: marker.eventSK };
    }
    // The first delivery that got stored wins: a redelivery changes nothing, and only fills in an
    // event whose earlier delivery failed between its marker and its write.
    for (const item of await batchGet(alreadyClaimed.flatMap((eventId) => located.get(eventId)?.key ?? []))) {
      const event = JSON.parse(item.event as string) as StoredEvent;
      const entry = located.get(event.eventId);
      if (!entry) continue;
      entry.event = event;
      stored.add(event.eventId);
    }
  }

  await batchWrite(
    [...located.values()]
      .filter(({ event }) => !stored.has(event.eventId))
      .map(({ event, key }) => ({
        PutRequest: { Item: { ...key, eventId: event.eventId, name: event.name, timestamp: event.timestamp, event: JSON.stringify(event) } },
      })),
    { concurrency: WRITE_CONCURRENCY },
  );
  return [...located.values()].map(({ event }) => event);
}

/** True when this delivery claimed the id; false when an earlier one had. */
async function claimMarker(pixelId: string, event: StoredEvent): Promise<boolean> {
  const location = eventKey(pixelId, event);
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...markerKey(pixelId, event.eventId),
          eventId: event.eventId,
          eventPK: location.PK,
          eventSK: location.SK,
          timestamp: event.timestamp,
          receivedAt: event.receivedAt,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

const DAY_MS = 86_400_000;

/**
 * The pixel's events with `from <= timestamp < to`, oldest first (ties by event id). One Query
 * per UTC day and shard in the range, so the cost follows the range and this pixel's volume only.
 */
export async function readEvents(pixelId: string, from: Date, to: Date): Promise<StoredEvent[]> {
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw new RangeError('readEvents needs valid dates');
  if (from >= to) return [];
  const fromKey = from.toISOString();
  const toKey = to.toISOString();
  const partitions: string[] = [];
  for (let day = Math.floor(from.getTime() / DAY_MS) * DAY_MS; day < to.getTime(); day += DAY_MS) {
    for (let shard = 0; shard < EVENT_SHARDS; shard++) partitions.push(eventPartitionKey(pixelId, new Date(day).toISOString().slice(0, 10), shard));
  }
  const pages = await mapWithConcurrency(partitions, READ_CONCURRENCY, (partition) =>
    // `SK BETWEEN from AND to` is [from, to): a key `<to>#<id>` sorts after the bare `<to>`.
    queryAll({
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': partition, ':from': fromKey, ':to': toKey },
      ProjectionExpression: 'SK, #event',
      ExpressionAttributeNames: { '#event': 'event' },
    }),
  );
  return (pages.flat() as Array<{ SK: string; event: string }>)
    .sort((a, b) => (a.SK < b.SK ? -1 : a.SK > b.SK ? 1 : 0))
    .map((item) => JSON.parse(item.event) as StoredEvent);
}
