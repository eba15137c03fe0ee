import { QueryCommand, UpdateCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from './condition-failure';
import { documentClient, tableName } from './dynamo-client';
import { PENDING_SHARDS, parkedPartition, pendingPartition, pendingShardOf, pendingSortKey, runPrefixOf } from './pending-index';

/**
 * What becomes of a pending item whose projection fails: the failure is recorded on the item
 * (how many attempts, the last error, when it first and last failed, when it may be tried again),
 * and the item stays pending; at the policy's last attempt it is parked instead: moved from the
 * pending index to the parked index (`PARKED#<shard>`, same sort key), the item itself untouched
 * otherwise, so nothing of it is lost and no TTL runs on it. `replayParked` moves it back, with
 * its attempts reset; the next consumer run projects it like any pending item.
 *
 * Each write is conditional on the item being as the consumer read it (still pending, same sort
 * key, same attempt count): a failure recorded twice (a retried call, two images of one item)
 * counts once, an item another consumer projected meanwhile is left alone, and a settings head
 * rewritten since (a new sort key) is not charged with its earlier version's failure.
 *
 * Deployed, recording a failure is a MODIFY of a pending item, which the stream's filter passes:
 * the stream delivers the item again, and that delivery is the retry. Parking and projecting
 * both take the item out of `PENDING#`, so neither is delivered again; a replay puts it back, so
 * it is.
 */
export interface RetryPolicy {
  /** The failure that parks the item: its `maxAttempts`-th. */
  maxAttempts: number;
  /** How long after its `attempts`-th failure an item may be tried again (the local drain honours it). */
  backoffMs(attempts: number): number;
}

/** Attributes a failure leaves on a pending or parked item; projecting or replaying it clears them. */
export const FAILURE_ATTRIBUTES = ['attempts', 'lastErrorName', 'lastErrorMessage', 'firstFailedAt', 'lastFailedAt', 'retryAt', 'parkedAt'] as const;

/** What a parked (or pending) item says about itself (`npm run replay-parked -- list`). */
export interface IndexedItem {
  pixelId: string;
  /** `entry` (a log entry: `id` is its entryId), `outbox` (a settings head: `id` is its SK) or what else was pending. */
  kind: 'entry' | 'outbox' | 'other';
  id: string;
  attempts: number;
  errorName: string;
  errorMessage: string;
  firstFailedAt: string;
  lastFailedAt: string;
  parkedAt: string;
  key: { PK: string; SK: string };
  sortKey: string;
}

/** An error's message kept on the item: enough to tell the cause, bounded so the item stays small. */
const MAX_MESSAGE = 1_000;

/** The pixel a pending item belongs to: its `pixelId`, or the one its partition key names (settings heads). */
export function pixelOfPending(item: Record<string, unknown>): string {
  if (typeof item.pixelId === 'string') return item.pixelId;
  return /^PIXEL#([^#]+)/.exec(String(item.PK))?.[1] ?? String(item.PK);
}

/** The attempts already recorded on a pending item. */
export const attemptsOf = (item: Record<string, unknown>): number => (typeof item.attempts === 'number' ? item.attempts : 0);

/**
 * Records that `item` failed with `error`: 'retry' (still pending, may be tried again from its
 * `retryAt`), 'parked', or 'moved' when the item is no longer as it was read (projected, parked or
 * rewritten meanwhile, or this very failure already recorded). Any other store error is thrown:
 * the item is then pending as it was, and the caller must see that it runs again.
 */
export async function recordFailure(item: Record<string, unknown>, error: unknown, policy: RetryPolicy, now: Date = new Date()): Promise<'retry' | 'parked' | 'moved'> {
  const before = attemptsOf(item);
  const attempts = before + 1;
  const park = attempts >= policy.maxAttempts;
  const pixelId = pixelOfPending(item);
  const at = now.toISOString();
  const { name, message } = describeError(error);
  const values: Record<string, unknown> = {
    ':pending': item.GSI2PK,
    ':readSk': item.GSI2SK,
    ':attempts': attempts,
    ':name': name,
    ':message': message,
    ':now': at,
    ...(before > 0 ? { ':before': before } : {}),
  };
  if (park) {
    values[':parked'] = parkedPartition(pendingShardOf(pixelId));
    values[':sk'] = parkedSortKey(item, pixelId);
  } else {
    values[':retryAt'] = new Date(now.getTime() + policy.backoffMs(attempts)).toISOString();
  }
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: item.PK, SK: item.SK },
        UpdateExpression:
          'SET attempts = :attempts, lastErrorName = :name, lastErrorMessage = :message, firstFailedAt = if_not_exists(firstFailedAt, :now), lastFailedAt = :now, ' +
          (park ? 'GSI2PK = :parked, GSI2SK = :sk, parkedAt = :now REMOVE retryAt, #ttl' : 'retryAt = :retryAt'),
        ConditionExpression: `GSI2PK = :pending AND GSI2SK = :readSk AND ${before > 0 ? 'attempts = :before' : 'attribute_not_exists(attempts)'}`,
        ...(park ? { ExpressionAttributeNames: { '#ttl': 'ttl' } } : {}),
        ExpressionAttributeValues: values,
      }),
    );
  } catch (caught) {
    if (isConditionFailure(caught)) return 'moved';
    throw caught;
  }
  return park ? 'parked' : 'retry';
}

/**
 * A parked item's sort key: its pending one in the current layout (an item pending since before
 * the sort key carried the pixel gets the pixel now, so `--pixel` finds it).
 */
function parkedSortKey(item: Record<string, unknown>, pixelId: string): string {
  const sortKey = String(item.GSI2SK);
  if (runPrefixOf(sortKey) !== undefined) return sortKey;
  return pendingSortKey(pixelId, sortKey, typeof item.outbox === 'string' ? 'outbox' : 'entry');
}

function describeError(error: unknown): { name: string; message: string } {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error).slice(0, MAX_MESSAGE) };
  const cause = error.cause instanceof Error ? ` (cause: ${error.cause.name}: ${error.cause.message})` : '';
  return { name: error.name, message: `${error.message}${cause}`.slice(0, MAX_MESSAGE) };
}

/**
 * The items of the parked (or the pending) index, of one pixel or of every pixel, in shard and
 * sort-key order. (A pixel's pending items from before the sort key carried the pixel are listed
 * only without `pixelId`.)
 */
export async function listIndexed(index: 'parked' | 'pending', pixelId?: string): Promise<IndexedItem[]> {
  const shards = pixelId === undefined ? Array.from({ length: PENDING_SHARDS }, (_, shard) => shard) : [pendingShardOf(pixelId)];
  const partition = index === 'parked' ? parkedPartition : pendingPartition;
  const listed: IndexedItem[] = [];
  for (const shard of shards) {
    let start: QueryCommandInput['ExclusiveStartKey'];
    do {
      const page = await documentClient.send(
        new QueryCommand({
          TableName: tableName(),
          IndexName: 'GSI2',
          KeyConditionExpression: pixelId === undefined ? 'GSI2PK = :pk' : 'GSI2PK = :pk AND begins_with(GSI2SK, :run)',
          ExpressionAttributeValues: { ':pk': partition(shard), ...(pixelId === undefined ? {} : { ':run': pendingSortKey(pixelId, '') }) },
          // The report needs what failed and why, not the entry's events.
          ProjectionExpression: 'PK, SK, pixelId, entryId, outbox, GSI2SK, attempts, lastErrorName, lastErrorMessage, firstFailedAt, lastFailedAt, parkedAt',
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) listed.push(indexedItemOf(item));
      start = page.LastEvaluatedKey;
    } while (start);
  }
  return listed;
}

export const listParked = (pixelId?: string) => listIndexed('parked', pixelId);

function indexedItemOf(item: Record<string, unknown>): IndexedItem {
  const kind = typeof item.entryId === 'string' ? 'entry' : typeof item.outbox === 'string' ? 'outbox' : 'other';
  return {
    pixelId: pixelOfPending(item),
    kind,
    id: kind === 'entry' ? String(item.entryId) : String(item.SK),
    attempts: attemptsOf(item),
    errorName: String(item.lastErrorName ?? ''),
    errorMessage: String(item.lastErrorMessage ?? ''),
    firstFailedAt: String(item.firstFailedAt ?? ''),
    lastFailedAt: String(item.lastFailedAt ?? ''),
    parkedAt: String(item.parkedAt ?? ''),
    key: { PK: String(item.PK), SK: String(item.SK) },
    sortKey: String(item.GSI2SK),
  };
}

/**
 * Puts a parked item back in the pending index with its failure record cleared (attempts start
 * again from nothing): the drain, or deployed the stream (a MODIFY into `PENDING#`), hands it to
 * the consumer. False when it is no longer parked (replayed by a run before, or its settings head
 * rewritten). Safe to repeat.
 */
export async function replayParked(item: IndexedItem): Promise<boolean> {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: item.key,
        UpdateExpression: `SET GSI2PK = :pending REMOVE ${FAILURE_ATTRIBUTES.join(', ')}`,
        ConditionExpression: 'GSI2PK = :parked',
        ExpressionAttributeValues: {
          ':pending': pendingPartition(pendingShardOf(item.pixelId)),
          ':parked': parkedPartition(pendingShardOf(item.pixelId)),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * Has the stream deliver a pending item again: a write to it (due now) is a MODIFY its filter
 * passes. For items a stream batch left behind when Lambda gave up on it (the on-failure queue):
 * they are still pending, but no record would deliver them. Locally the drain finds them anyway;
 * there it only ends a backoff early. False when the item is no longer pending as listed.
 */
export async function redeliverPending(item: IndexedItem, now: Date = new Date()): Promise<boolean> {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: item.key,
        UpdateExpression: 'SET retryAt = :now',
        ConditionExpression: 'GSI2PK = :pending AND GSI2SK = :sk',
        ExpressionAttributeValues: { ':pending': pendingPartition(pendingShardOf(item.pixelId)), ':sk': item.sortKey, ':now': now.toISOString() },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
