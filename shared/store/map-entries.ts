import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ItemKey } from './batch-get';
import { documentClient, tableName } from './dynamo-client';
import { unlessRefused } from './condition-failure';


/**
 * Sets entries of an item's map attributes in one UpdateItem. A path into a missing map fails, so
 * on the item's first write (its first map absent) the item is created with every map empty, unless
 * a concurrent writer created it first, and the entries are set again: the read models' items
 * (query facts, journeys) grow this way without a read before each write.
 */
export async function setMapEntries(key: ItemKey, maps: readonly [string, ...string[]], entries: ReadonlyArray<{ map: string; key: string; value: string }>): Promise<void> {
  const names: Record<string, string> = {};
  const values: Record<string, string> = {};
  const sets = entries.map((entry, i) => {
    names[`#k${i}`] = entry.key;
    values[`:v${i}`] = entry.value;
    return `${entry.map}.#k${i} = :v${i}`;
  });
  const update = () =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `attribute_exists(${maps[0]})`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  if (await unlessRefused(update)) return;
  await unlessRefused(() =>
    documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...key, ...Object.fromEntries(maps.map((map) => [map, {}])) }, ConditionExpression: 'attribute_not_exists(PK)' })),
  );
  await update();
}
