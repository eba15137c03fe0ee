import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountUpdatedDetail } from '../events/account-updated';
import { RetryableFault } from '../faults';
import { accountSchema, type Account } from '../schemas/account';
import { newEventId } from '../tracking/event-id';
import { documentClient, tableName } from './dynamo-client';
import { ACCOUNT_HEAD_SK, MAX_OUTBOX, outboxOf, pk } from './outbox-heads';
import { pendingAttributes } from './pending-index';

/**
 * The account of a pixel: one item `PK=PIXEL#<pixelId>`, `SK=ACCOUNT` holding `account` (JSON),
 * `version` for optimistic concurrency, the `changeId` of the write that stored it, and the outbox
 * of `accountUpdated` events not yet published, exactly as the order-settings head carries its own
 * (order-settings-repository.ts: the pipeline consumer publishes and clears both).
 */
export interface VersionedAccount {
  account: Account;
  version: number;
  changeId: string | undefined;
  outbox: AccountUpdatedDetail[];
  outboxRev: number;
}

export class ConcurrentAccountUpdateError extends RetryableFault {
  constructor(pixelId: string) {
    super(`The account of pixel ${pixelId} changed while it was being updated`);
  }
}

export async function loadAccount(pixelId: string): Promise<VersionedAccount | undefined> {
  const { Item: head } = await documentClient.send(
    new GetCommand({ TableName: tableName(), Key: { PK: pk(pixelId), SK: ACCOUNT_HEAD_SK }, ConsistentRead: true }),
  );
  if (!head) return undefined;
  return {
    account: accountSchema.parse(JSON.parse(head.account as string)),
    version: head.version as number,
    changeId: head.changeId as string | undefined,
    outbox: outboxOf(head),
    outboxRev: (head.outboxRev as number | undefined) ?? 0,
  };
}

/**
 * Stores `account` as the next version after `expectedVersion` (undefined: none stored yet), with
 * the outbox it must carry, in one conditional PutItem. Throws ConcurrentAccountUpdateError when
 * another write got there first; the caller re-reads and retries.
 */
export async function saveAccount(
  pixelId: string,
  account: Account,
  expectedVersion: number | undefined,
  updatedAt: Date,
  write: { changeId?: string; outbox?: readonly AccountUpdatedDetail[]; outboxRev?: number } = {},
): Promise<number> {
  const { changeId = randomUUID(), outbox = [], outboxRev = 0 } = write;
  if (outbox.length > MAX_OUTBOX) throw new RetryableFault(`The account of pixel ${pixelId} has ${outbox.length} unpublished events; retry once they are published`);
  const version = (expectedVersion ?? 0) + 1;
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          PK: pk(pixelId),
          SK: ACCOUNT_HEAD_SK,
          account: JSON.stringify(account),
          version,
          changeId,
          updatedAt: updatedAt.toISOString(),
          outboxRev,
          ...(outbox.length > 0 ? { outbox: JSON.stringify(outbox), ...pendingAttributes(pixelId, newEventId(updatedAt)) } : {}),
        },
        ConditionExpression:
          expectedVersion === undefined ? 'attribute_not_exists(PK)' : 'version = :expected AND (attribute_not_exists(outboxRev) OR outboxRev = :outboxRev)',
        ...(expectedVersion === undefined ? {} : { ExpressionAttributeValues: { ':expected': expectedVersion, ':outboxRev': outboxRev } }),
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new ConcurrentAccountUpdateError(pixelId);
    throw error;
  }
  return version;
}
