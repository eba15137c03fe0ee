import { gunzipSync, gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountUpdatedDetail } from '../events/account-updated';
import { logger } from '../config/logger';
import { RetryableFault } from '../faults';
import { orderSettingsSchema, type OrderSettings } from '../schemas/order-settings';
import { batchWrite } from './batch-write';
import { documentClient, tableName } from './dynamo-client';
import { queryAll } from './query-all';
import { assertOutboxRoom, MAX_OUTBOX, ORDER_SETTINGS_HEAD_SK as HEAD_SK, outboxOf, pk, writeSnapshotHead } from './outbox-heads';

// The consumer of pending items reaches the outbox heads through this module.
export { outboxOf, pk } from './outbox-heads';

/**
 * Order settings are one snapshot per pixel, versioned for optimistic concurrency.
 *
 * The spec allows 50 filters x 20 groups x 20 conditions, which can exceed DynamoDB's 400 KB item
 * limit. So the snapshot is stored gzipped: the first chunk inline in the head item (the only read
 * in the common case), any further chunks in immutable items keyed by version and write id. Chunks
 * are written before the head flips to them, so a reader never sees a partial document, and a
 * writer that loses the version race never overwrites the winner's chunks.
 */
export interface VersionedOrderSettings {
  settings: OrderSettings;
  version: number;
  /** The `changeId` of the write that stored this version. */
  changeId: string | undefined;
  /** Events of committed writes not published yet (the outbox), oldest first. */
  outbox: AccountUpdatedDetail[];
  /** Bumped whenever the consumer takes published events out: a write carrying a stale outbox fails. */
  outboxRev: number;
}

export class ConcurrentUpdateError extends RetryableFault {
  constructor(pixelId: string) {
    super(`Order settings of pixel ${pixelId} changed while they were being replaced`);
  }
}

const WHAT = 'Order settings';
const CHUNK_BYTES = 300_000;
export { MAX_OUTBOX };
const CHUNK_SK_PREFIX = 'ORDER_SETTINGS#';
const chunkSk = (version: number, writeId: string, index: number) =>
  `${CHUNK_SK_PREFIX}${String(version).padStart(12, '0')}#${writeId}#${String(index).padStart(4, '0')}`;
const versionOfChunkSk = (sk: string) => Number(sk.slice(CHUNK_SK_PREFIX.length).split('#')[0]);

export async function loadOrderSettings(pixelId: string): Promise<VersionedOrderSettings | undefined> {
  const { Item: head } = await documentClient.send(
    new GetCommand({ TableName: tableName(), Key: { PK: pk(pixelId), SK: HEAD_SK }, ConsistentRead: true }),
  );
  if (!head) return undefined;
  const chunks: Uint8Array[] = [head.data as Uint8Array];
  if ((head.chunkCount as number) > 1) {
    const items = await queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: {
        ':pk': pk(pixelId),
        ':prefix': `${CHUNK_SK_PREFIX}${String(head.version).padStart(12, '0')}#${head.writeId as string}#`,
      },
      ConsistentRead: true,
    });
    chunks.push(...items.map((item) => item.data as Uint8Array));
    if (chunks.length !== head.chunkCount) {
      throw new Error(`Order settings of pixel ${pixelId} are missing chunks (${chunks.length}/${head.chunkCount as number})`);
    }
  }
  const json = gunzipSync(Buffer.concat(chunks)).toString('utf8');
  return {
    settings: orderSettingsSchema.parse(JSON.parse(json)),
    version: head.version as number,
    changeId: head.changeId as string | undefined,
    outbox: outboxOf(head),
    outboxRev: (head.outboxRev as number | undefined) ?? 0,
  };
}

/**
 * Stores `settings` as the next version after `expectedVersion` (undefined: nothing stored yet).
 * Throws ConcurrentUpdateError when another write got there first; the caller re-reads and retries.
 * `changeId` is stored with the version, so a caller whose write got no answer can read whether
 * that write landed.
 */
export async function saveOrderSettings(
  pixelId: string,
  settings: OrderSettings,
  expectedVersion: number | undefined,
  updatedAt: Date,
  write: {
    /** Stored with the version, so a caller whose write got no answer can read whether it landed. */
    changeId?: string;
    /** The events this write must cause plus those still pending on the version it replaces. */
    outbox?: readonly AccountUpdatedDetail[];
    /** The `outboxRev` read with `expectedVersion`. */
    outboxRev?: number;
  } = {},
): Promise<number> {
  // Checked before any chunk is written, so a refused write leaves none behind.
  assertOutboxRoom(WHAT, pixelId, write.outbox ?? []);
  const version = (expectedVersion ?? 0) + 1;
  const writeId = randomUUID();
  const blob = gzipSync(JSON.stringify(settings));
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < blob.length || chunks.length === 0; offset += CHUNK_BYTES) {
    chunks.push(blob.subarray(offset, offset + CHUNK_BYTES));
  }
  const overflowKeys = chunks.slice(1).map((_, i) => ({ PK: pk(pixelId), SK: chunkSk(version, writeId, i + 1) }));
  await batchWrite(overflowKeys.map((key, i) => ({ PutRequest: { Item: { ...key, data: chunks[i + 1] } } })));

  try {
    await writeSnapshotHead(
      { pixelId, headSk: HEAD_SK, what: WHAT, attributes: { writeId, chunkCount: chunks.length, data: chunks[0] } },
      expectedVersion,
      updatedAt,
      write,
      () => new ConcurrentUpdateError(pixelId),
    );
  } catch (error) {
    if (error instanceof ConcurrentUpdateError) await deleteQuietly(overflowKeys, pixelId);
    throw error;
  }
  await deleteChunksOlderThan(pixelId, version);
  return version;
}

/**
 * Chunks of versions before the committed one can never be read again: the head has moved past
 * them and a write still holding an older version will fail its condition. Newer chunks may
 * belong to a write in flight, so they are left alone.
 */
async function deleteChunksOlderThan(pixelId: string, version: number): Promise<void> {
  try {
    const items = await queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': pk(pixelId), ':prefix': CHUNK_SK_PREFIX },
      ProjectionExpression: 'PK, SK',
    });
    const stale = items.filter((item) => versionOfChunkSk(item.SK as string) < version);
    await batchWrite(stale.map((item) => ({ DeleteRequest: { Key: { PK: item.PK, SK: item.SK } } })));
  } catch (error) {
    // The new version is committed; leftovers only cost storage and the next write retries them.
    logger.warn('Could not delete superseded order-settings chunks', { pixelId, error });
  }
}

async function deleteQuietly(keys: Array<{ PK: string; SK: string }>, pixelId: string): Promise<void> {
  try {
    await batchWrite(keys.map((Key) => ({ DeleteRequest: { Key } })));
  } catch (error) {
    logger.warn('Could not delete chunks of a lost order-settings write', { pixelId, error });
  }
}
