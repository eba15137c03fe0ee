import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AccountUpdatedDetail } from '../events/account-updated';
import { RetryableFault } from '../faults';
import { costSettingsInputSchema, type CostSettings } from '../schemas/cost-settings';
import { newEventId } from '../tracking/event-id';
import { documentClient, tableName } from './dynamo-client';
import { COST_SETTINGS_HEAD_SK, MAX_OUTBOX, outboxOf, pk } from './outbox-heads';
import { pendingAttributes } from './pending-index';

/**
 * Cost settings are one small snapshot per pixel (`PIXEL#<pixelId>` / `COST_SETTINGS`), versioned
 * for optimistic concurrency, with the same outbox as the order settings: the `accountUpdated`
 * event of a write travels in the write's own conditional PutItem and the pipeline consumer
 * publishes it (bounded: 50 gateways fit one item many times over, so no chunks are needed).
 */
export const COST_SETTINGS_SK = COST_SETTINGS_HEAD_SK;

export interface VersionedCostSettings {
  settings: CostSettings;
  version: number;
  changeId: string | undefined;
  updatedAt: string;
  outbox: AccountUpdatedDetail[];
  outboxRev: number;
}

export class ConcurrentCostSettingsUpdateError extends RetryableFault {
  constructor(pixelId: string) {
    super(`Cost settings of pixel ${pixelId} changed while they were being replaced`);
  }
}


export async function loadCostSettings(pixelId: string): Promise<VersionedCostSettings | undefined> {
  const { Item: head } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: pk(pixelId), SK: COST_SETTINGS_SK }, ConsistentRead: true }));
  if (!head) return undefined;
  return {
    // Parsed with the input schema: a corrupt item fails loudly rather than costing orders wrongly.
    settings: costSettingsInputSchema.parse(JSON.parse(head.settings as string)),
    version: head.version as number,
    changeId: head.changeId as string | undefined,
    updatedAt: head.updatedAt as string,
    outbox: outboxOf(head),
    outboxRev: (head.outboxRev as number | undefined) ?? 0,
  };
}

/**
 * Stores `settings` as the version after `expectedVersion` (undefined: nothing stored yet), with
 * the events this write causes plus those still pending; throws ConcurrentCostSettingsUpdateError
 * when another write got there first.
 */
export async function saveCostSettings(
  pixelId: string,
  settings: CostSettings,
  expectedVersion: number | undefined,
  updatedAt: Date,
  write: { changeId?: string; outbox?: readonly AccountUpdatedDetail[]; outboxRev?: number } = {},
): Promise<number> {
  const { changeId = randomUUID(), outbox = [], outboxRev = 0 } = write;
  if (outbox.length > MAX_OUTBOX) throw new RetryableFault(`Cost settings of pixel ${pixelId} have ${outbox.length} unpublished events; retry once they are published`);
  const version = (expectedVersion ?? 0) + 1;
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          PK: pk(pixelId),
          SK: COST_SETTINGS_SK,
          version,
          changeId,
          settings: JSON.stringify(settings),
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
    if (!(error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException')) throw error;
    throw new ConcurrentCostSettingsUpdateError(pixelId);
  }
  return version;
}
