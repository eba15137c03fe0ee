import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from './dynamo-client';

/**
 * The version counter at the head of a collection (a pixel's ads, a pixel's exchange rates):
 * item `PK=<collection>, SK=DIRECTORY`, attribute `version`. Every write to the collection bumps
 * it after its items are written, so a reader that sees version n also sees every write that
 * produced n, and a cached copy read at version n is known current while the counter still says n.
 */
const HEAD_SK = 'DIRECTORY';

/** The collection's version, 0 when nothing was ever written. Strongly consistent: one small read. */
export async function readCollectionVersion(collectionPk: string): Promise<number> {
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName(),
      Key: { PK: collectionPk, SK: HEAD_SK },
      ConsistentRead: true,
      ProjectionExpression: '#version',
      ExpressionAttributeNames: { '#version': 'version' },
    }),
  );
  return (Item?.version as number | undefined) ?? 0;
}

/**
 * Atomically increments the version (concurrent writers each get their own bump). `set` names
 * attributes of the head to set in the same update, so a reader sees them with that version.
 */
export async function bumpCollectionVersion(collectionPk: string, at: Date, set: Record<string, string | number | boolean> = {}): Promise<number> {
  const extra = Object.keys(set);
  const { Attributes } = await documentClient.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: { PK: collectionPk, SK: HEAD_SK },
      UpdateExpression: `ADD #version :one SET updatedAt = :at${extra.map((_, i) => `, #set${i} = :set${i}`).join('')}`,
      ExpressionAttributeNames: { '#version': 'version', ...Object.fromEntries(extra.map((name, i) => [`#set${i}`, name])) },
      ExpressionAttributeValues: { ':one': 1, ':at': at.toISOString(), ...Object.fromEntries(extra.map((name, i) => [`:set${i}`, set[name]])) },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Attributes?.version as number;
}
