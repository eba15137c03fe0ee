import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../map-with-concurrency';
import { retryUntilCommitted } from '../retry-until-committed';
import { batchGet, type ItemKey } from './batch-get';
import { documentClient, tableName } from './dynamo-client';

export interface ItemMerge {
  key: ItemKey;
  /** The item's new attributes (keys aside) given what is stored now; `undefined` when nothing is. */
  merge: (stored: Record<string, unknown> | undefined) => Record<string, unknown>;
}

/** Item revisions: every merged write bumps `rev` and is conditional on the one it read. */
const REV = 'rev';

/**
 * Read-merge-write of many items at once, safe against concurrent writers of the same items: each
 * item is written conditionally on the revision it was read at, and when another writer got
 * there first it is read again and merged again, so no writer's changes are lost. All items are
 * read in batches first; only items that lost a race are read again, one by one.
 */
export async function mergeItems(merges: readonly ItemMerge[], options: { concurrency: number }): Promise<Array<{ key: ItemKey; rev: number }>> {
  if (merges.length === 0) return [];
  const stored = new Map((await batchGet(merges.map((update) => update.key), { concurrency: 4 })).map((item) => [idOf(item as ItemKey), item]));
  // Each item's committed revision, for writers of what derives from it (ad rollups).
  return mapWithConcurrency(merges, options.concurrency, async ({ key, merge }) => {
    let current = stored.get(idOf(key));
    const rev = await retryUntilCommitted(
      async () => {
        try {
          return await putMerged(key, merge(current), current);
        } catch (error) {
          if (error instanceof ConditionalCheckFailedException) current = await readItem(key);
          throw error;
        }
      },
      { isConflict: (error) => error instanceof ConditionalCheckFailedException },
    );
    return { key, rev };
  });
}

/** Returns the revision written. */
async function putMerged(key: ItemKey, attributes: Record<string, unknown>, current: Record<string, unknown> | undefined): Promise<number> {
  const revision = current?.[REV] as number | undefined;
  await documentClient.send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...attributes, ...key, [REV]: (revision ?? 0) + 1 },
      ...(current === undefined
        ? { ConditionExpression: 'attribute_not_exists(PK)' }
        : revision === undefined
          ? { ConditionExpression: 'attribute_exists(PK) AND attribute_not_exists(#rev)', ExpressionAttributeNames: { '#rev': REV } }
          : { ConditionExpression: '#rev = :rev', ExpressionAttributeNames: { '#rev': REV }, ExpressionAttributeValues: { ':rev': revision } }),
    }),
  );
  return (revision ?? 0) + 1;
}

async function readItem(key: ItemKey): Promise<Record<string, unknown> | undefined> {
  return (await documentClient.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }))).Item;
}

function idOf(key: ItemKey): string {
  return `${key.PK}\n${key.SK}`;
}
