import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountUpdatedDetail } from '../events/account-updated';
import { RetryableFault } from '../faults';
import { newEventId } from '../tracking/event-id';
import { documentClient, tableName } from './dynamo-client';
import { FAILURE_ATTRIBUTES } from './pending-failures';
import { announcePending, pendingAttributes } from './pending-index';

/**
 * What the pixel's settings heads (order settings, account, cost settings) share: their partition,
 * their outbox of `accountUpdated` events and its clearing by the pipeline consumer. Kept apart from
 * the repositories so that a function reading one of them does not load the others' schemas.
 */
export const pk = (pixelId: string) => `PIXEL#${pixelId}`;
export const ORDER_SETTINGS_HEAD_SK = 'ORDER_SETTINGS';
const HEAD_SK = ORDER_SETTINGS_HEAD_SK;

/**
 * Unpublished events a head may carry: ~250 bytes each, so the outbox stays within the room the
 * inline chunk leaves under DynamoDB's 400 KB. Reached only when publishing has been failing for
 * a long time; a write is then refused (503, nothing stored) rather than an event dropped.
 */
export const MAX_OUTBOX = 200;

/**
 * The outbox: the events a write must cause travel in the same conditional PutItem as the write
 * itself, on the head item, which then sits in the pending index until the consumer has published
 * them. A write carries forward the events still pending on the version it replaces, so no
 * committed write's event is lost however quickly writes follow each other.
 */
export function outboxOf(head: Record<string, unknown>): AccountUpdatedDetail[] {
  return typeof head.outbox === 'string' ? (JSON.parse(head.outbox) as AccountUpdatedDetail[]) : [];
}

/**
 * The pixel's outbox heads: the order-settings head, the account head (account-repository.ts) and
 * the cost-settings head (cost-settings-repository.ts) carry their outbox the same way (`outbox`,
 * `outboxRev`, `version`, the pending index), so the one consumer of pending items publishes and
 * clears all three through these functions.
 */
export const ACCOUNT_HEAD_SK = 'ACCOUNT';
export const COST_SETTINGS_HEAD_SK = 'COST_SETTINGS';
const OUTBOX_HEAD_SKS: readonly string[] = [HEAD_SK, ACCOUNT_HEAD_SK, COST_SETTINGS_HEAD_SK];

export const isOutboxHead = (item: Record<string, unknown>) => OUTBOX_HEAD_SKS.includes(item.SK as string) && typeof item.PK === 'string';

/**
 * Takes published events out of a head's outbox (and the head out of the pending index once its
 * outbox is empty). Conditional on the head not having changed since it was read; a write that
 * committed meanwhile carried the events forward, so they are taken out of its outbox too. Bumping
 * `outboxRev` makes a write that read the outbox before this fail and re-read, so it cannot carry
 * a published event forward again. If this gives up, the events stay pending and are published
 * again under the same eventIds, which subscribers deduplicate.
 */
export async function clearOutbox(pixelId: string, publishedIds: ReadonlySet<string>, headSk: string): Promise<void> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const { Item: head } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: pk(pixelId), SK: headSk }, ConsistentRead: true }));
    if (!head) return;
    const outbox = outboxOf(head);
    const remaining = outbox.filter((event) => !publishedIds.has(event.eventId));
    if (remaining.length === outbox.length) return;
    const rev = head.outboxRev as number | undefined;
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: { PK: pk(pixelId), SK: headSk },
          // Emptied, the head leaves the pending index, and what its failures recorded goes with it.
          UpdateExpression: remaining.length === 0 ? `REMOVE outbox, GSI2PK, GSI2SK, ${FAILURE_ATTRIBUTES.join(', ')} SET outboxRev = :next` : 'SET outbox = :outbox, outboxRev = :next',
          ConditionExpression: rev === undefined ? 'version = :version AND attribute_not_exists(outboxRev)' : 'version = :version AND outboxRev = :rev',
          ExpressionAttributeValues: {
            ':version': head.version,
            ':next': (rev ?? 0) + 1,
            ...(rev === undefined ? {} : { ':rev': rev }),
            ...(remaining.length === 0 ? {} : { ':outbox': JSON.stringify(remaining) }),
          },
        }),
      );
      return;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException')) throw error;
    }
  }
}


/** What every snapshot head with an outbox carries besides its payload. */
export interface HeadState {
  version: number;
  changeId: string | undefined;
  updatedAt: string | undefined;
  outbox: AccountUpdatedDetail[];
  outboxRev: number;
}

/** Reads a small snapshot head (account, cost settings): its JSON payload attribute and its state. */
export async function readSnapshotHead(pixelId: string, headSk: string, payloadAttribute: string): Promise<{ payload: unknown; state: HeadState } | undefined> {
  const { Item: head } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: pk(pixelId), SK: headSk }, ConsistentRead: true }));
  if (!head) return undefined;
  return {
    payload: JSON.parse(head[payloadAttribute] as string),
    state: {
      version: head.version as number,
      changeId: head.changeId as string | undefined,
      updatedAt: head.updatedAt as string | undefined,
      outbox: outboxOf(head),
      outboxRev: (head.outboxRev as number | undefined) ?? 0,
    },
  };
}

/** Refuses a write whose outbox is full (publishing has been failing for long): 503, nothing stored. */
export function assertOutboxRoom(what: string, pixelId: string, outbox: readonly AccountUpdatedDetail[]): void {
  if (outbox.length > MAX_OUTBOX) throw new RetryableFault(`${what} of pixel ${pixelId}: ${outbox.length} unpublished events; retry once they are published`);
}

/**
 * Stores a snapshot head as the version after `expectedVersion` (undefined: nothing stored yet),
 * with the outbox it must carry, in one conditional PutItem: the write and its events commit
 * together. The head's content is its JSON `payload` under `payloadAttribute` (account, cost
 * settings) or, for a head with a layout of its own (the order settings' gzipped chunks), its
 * `attributes`. Conditional also on `outboxRev`, so a write that read an outbox the consumer has
 * since cleared re-reads rather than carrying a published event forward. Throws `conflict()` when
 * another write got there first (the caller re-reads and retries), and a RetryableFault when
 * publishing has been failing so long the outbox is full.
 */
export async function writeSnapshotHead(
  target: { pixelId: string; headSk: string; what: string } & ({ payloadAttribute: string; payload: unknown } | { attributes: Record<string, unknown> }),
  expectedVersion: number | undefined,
  updatedAt: Date,
  write: { changeId?: string; outbox?: readonly AccountUpdatedDetail[]; outboxRev?: number },
  conflict: () => Error,
): Promise<number> {
  const { pixelId, headSk, what } = target;
  const { changeId = randomUUID(), outbox = [], outboxRev = 0 } = write;
  assertOutboxRoom(what, pixelId, outbox);
  const content = 'attributes' in target ? target.attributes : { [target.payloadAttribute]: JSON.stringify(target.payload) };
  const version = (expectedVersion ?? 0) + 1;
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...content,
          PK: pk(pixelId),
          SK: headSk,
          version,
          changeId,
          updatedAt: updatedAt.toISOString(),
          outboxRev,
          ...(outbox.length > 0 ? { outbox: JSON.stringify(outbox), ...pendingAttributes(pixelId, newEventId(updatedAt), 'outbox') } : {}),
        },
        ConditionExpression:
          expectedVersion === undefined ? 'attribute_not_exists(PK)' : 'version = :expected AND (attribute_not_exists(outboxRev) OR outboxRev = :outboxRev)',
        ...(expectedVersion === undefined ? {} : { ExpressionAttributeValues: { ':expected': expectedVersion, ':outboxRev': outboxRev } }),
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException') throw conflict();
    throw error;
  }
  if (outbox.length > 0) announcePending(pixelId);
  return version;
}
