import { gunzipSync, gzip, gzipSync, constants as zlib } from 'node:zlib';
import { promisify } from 'node:util';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../map-with-concurrency';
import { WriteOutcomeUnknownError, isWriteOutcomeUnknown } from '../faults';
import { retryUntilCommitted } from '../retry-until-committed';
import { batchWrite } from './batch-write';
import { logTtl } from './retention';
import type { StoredEvent } from '../tracking/stored-event';
import { isConditionFailure, unlessRefused } from './condition-failure';
import { documentClient, tableName } from './dynamo-client';
import { FAILURE_ATTRIBUTES } from './pending-failures';
import { announcePending, pendingAttributes } from './pending-index';

/**
 * The ingestion log: one item per accepted request, written with one PutItem before the API
 * answers 200. It is the durable record the consumer projects events, orders and read models from.
 *
 * Item: `PK=PIXEL#<pixelId>#LOG`  `SK=<entryId>` (a ULID: acceptance time, then randomness)
 *       { kind: 'events', pixelId, entryId, acceptedAt, count, data: gzip(JSON of StoredEvent[]),
 *         GSI2PK/GSI2SK while pending or parked (pending-index.ts), what its failures recorded while
 *         it fails (pending-failures.ts), ttl once projected }
 *
 * One partition key per pixel: DynamoDB Streams, and Lambda reading them, keep records of one
 * partition key in order and in one shard, so entries of a pixel are never projected by two
 * invocations at once (the consumer relies on it, see consumer.ts). The cost is a per-pixel write
 * ceiling of one partition (1,000 WCU/s, about 1 MB/s of compressed batches; a 100-event batch
 * compresses to ~6 KB, so roughly 15,000 events/s per pixel).
 *
 * The events are stored compressed: a 128 KB body can grow when identities are hashed, and the log
 * item must stay under DynamoDB's 400 KB; gzip also cuts the write units a batch costs.
 */
export const LOG_KIND = 'events';
/** DynamoDB's item limit is 400 KB including names; the rest of the item is a few hundred bytes. */
const MAX_DATA_BYTES = 390_000;

export const logPartition = (pixelId: string) => `PIXEL#${pixelId}#LOG`;

export interface LogEntry {
  pixelId: string;
  /** ULID assigned at acceptance; log order is entryId order. */
  entryId: string;
  acceptedAt: string;
  /** As validated and hashed, each with its final eventId, in request order. */
  events: StoredEvent[];
  /** The events as the log item stores them (gzipped JSON), when the entry was read from the log. */
  data?: Uint8Array;
}

export class LogEntryTooLargeError extends Error {}

// Level 1: most of the size win for a fraction of the CPU of the default level.
const EVENTS_GZIP = { level: zlib.Z_BEST_SPEED };
const gzipAsync = promisify(gzip);

export function encodeEvents(events: readonly StoredEvent[]): Buffer {
  return gzipSync(JSON.stringify(events), EVENTS_GZIP);
}

/**
 * `encodeEvents` with the compression on libuv's thread pool: on the request path, so the event
 * loop goes on serving other requests meanwhile (the same bytes as `encodeEvents`).
 */
const encodeEventsOffThread = (events: readonly StoredEvent[]): Promise<Buffer> => gzipAsync(JSON.stringify(events), EVENTS_GZIP);

export function decodeEvents(data: Uint8Array): StoredEvent[] {
  return JSON.parse(gunzipSync(data).toString('utf8')) as StoredEvent[];
}

/**
 * Appends one entry with one conditional PutItem; resolves only once it is durably stored. A put
 * whose answer was lost is sent again (the SDK's retry, or `retryUntilCommitted` after a timeout):
 * if the first one landed, the condition fails on the entry itself, which is then read to confirm
 * it is this one. When the deadline leaves no time to find out, the error says the outcome is
 * unknown (a 500, never a 503 that would claim nothing was stored).
 */
export async function appendLogEntry(entry: LogEntry): Promise<void> {
  const data = await encodeEventsOffThread(entry.events);
  if (data.length > MAX_DATA_BYTES) throw new LogEntryTooLargeError(`A log entry of ${data.length} bytes exceeds ${MAX_DATA_BYTES}`);
  const item = { ...logItem(entry, data), ...pendingAttributes(entry.pixelId, entry.entryId) };
  await retryUntilCommitted(
    async () => {
      try {
        await documentClient.send(
          new PutCommand({
            TableName: tableName(),
            Item: item,
            // A ULID collision would need 2^40 entries in one millisecond; never overwrite one anyway.
            ConditionExpression: 'attribute_not_exists(PK)',
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        let stored: boolean;
        try {
          stored = await isStored(logPartition(entry.pixelId), entry.entryId, data);
        } catch (readError) {
          // The condition failed on an entry that is most likely this one, sent before without an answer.
          if (isWriteOutcomeUnknown(error)) throw new WriteOutcomeUnknownError('The log append got no answer and the read that would tell failed', { cause: readError });
          throw readError;
        }
        if (stored) return;
        throw error;
      }
    },
    { isConflict: () => false },
  );
  announcePending(entry.pixelId);
}

/** Whether the log holds this entry with exactly these events. */
async function isStored(pk: string, sk: string, data: Uint8Array): Promise<boolean> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: pk, SK: sk }, ConsistentRead: true, ProjectionExpression: '#data', ExpressionAttributeNames: { '#data': 'data' } }));
  return Item?.data instanceof Uint8Array && Buffer.compare(Item.data, data) === 0;
}

/** A log item's lasting attributes: what it holds while pending, apart from the pending index's. */
function logItem(entry: Pick<LogEntry, 'pixelId' | 'entryId' | 'acceptedAt' | 'events'>, data: Uint8Array): Record<string, unknown> {
  return {
    PK: logPartition(entry.pixelId),
    SK: entry.entryId,
    kind: LOG_KIND,
    pixelId: entry.pixelId,
    entryId: entry.entryId,
    acceptedAt: entry.acceptedAt,
    count: entry.events.length,
    data,
  };
}

/** A log item as read from the table, the pending index or a stream image. */
export function logEntryOf(item: Record<string, unknown>): LogEntry {
  return {
    pixelId: item.pixelId as string,
    entryId: item.entryId as string,
    acceptedAt: item.acceptedAt as string,
    events: decodeEvents(item.data as Uint8Array),
    data: item.data as Uint8Array,
  };
}

export const isLogItem = (item: Record<string, unknown>) => item.kind === LOG_KIND && typeof item.PK === 'string' && item.PK.endsWith('#LOG');

/**
 * Takes projected entries out of the pending index and lets them expire after the safety window.
 *
 * An entry read from the log (it carries its stored `data`) is written back whole, without its
 * pending attributes (and without what failures recorded on it), 25 to a BatchWriteItem instead
 * of one UpdateItem each: the consumer's largest count of calls per batch after the orders. That
 * write is unconditional, which is safe because a log item's events never change after it is
 * appended, and besides this only a failure record or parking changes the item (conditionally on
 * its still being pending, so never after this): this writes the very item that was read a moment
 * before, projected (two consumers write the same thing); it could only create an item again if it ran after the item expired, `LOG_RETENTION_HOURS` after a projection, while
 * a consumer holds an item for minutes at most. An entry without `data` (built by a caller, never
 * read from the log) is updated conditionally on existing, so such a call never creates an item.
 */
export async function markProjected(entries: readonly LogEntry[], now: Date = new Date()): Promise<void> {
  const ttl = logTtl(now);
  const projectedAt = now.toISOString();
  const read = entries.filter((entry) => entry.data !== undefined);
  await Promise.all([
    batchWrite(
      // projectedAt: how late projection was, for operators and the benchmark.
      read.map((entry) => ({ PutRequest: { Item: { ...logItem(entry, entry.data!), ttl, projectedAt } } })),
      { concurrency: 4 },
    ),
    mapWithConcurrency(
      entries.filter((entry) => entry.data === undefined),
      8,
      async (entry) => {
        await unlessRefused(() =>
          documentClient.send(
            new UpdateCommand({
              TableName: tableName(),
              Key: { PK: logPartition(entry.pixelId), SK: entry.entryId },
              UpdateExpression: `REMOVE GSI2PK, GSI2SK, ${FAILURE_ATTRIBUTES.join(', ')} SET #ttl = :ttl, projectedAt = if_not_exists(projectedAt, :now)`,
              ConditionExpression: 'attribute_exists(PK)',
              ExpressionAttributeNames: { '#ttl': 'ttl' },
              ExpressionAttributeValues: { ':ttl': ttl, ':now': projectedAt },
            }),
          ),
        );
      },
    ),
  ]);
}
