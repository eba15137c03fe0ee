import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { documentClient, tableName } from './dynamo-client';
import { queryAll } from './query-all';

/** What the store keeps about a key: a hash and metadata, never the raw key. */
export interface ApiKeyRecord {
  apiKeyPk: string;
  keyHash: string;
  pixelId: string;
  name: string;
  scopes: string[];
  /** The last four characters of the raw key, so an operator can tell keys apart in a list. */
  hint: string;
  createdAt: string;
  expiresAt?: string;
  revokedAt?: string;
}

const keyOf = (keyHash: string) => ({ PK: `APIKEY#${keyHash}`, SK: 'APIKEY' });

export async function findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName(), Key: keyOf(keyHash), ConsistentRead: true }),
  );
  return Item ? toRecord(Item) : undefined;
}

export async function saveNewApiKey(record: ApiKeyRecord): Promise<void> {
  await documentClient.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keyOf(record.keyHash),
        GSI1PK: `PIXEL#${record.pixelId}#APIKEYS`,
        GSI1SK: `${record.createdAt}#${record.apiKeyPk}`,
        GSI2PK: `APIKEYID#${record.apiKeyPk}`,
        GSI2SK: 'APIKEY',
        ...record,
      },
      ConditionExpression: 'attribute_not_exists(PK)',
    }),
  );
}

/** Marks a key revoked. Returns the revoked record, or undefined when no key has that id. */
export async function revokeApiKey(apiKeyPk: string, at: Date): Promise<ApiKeyRecord | undefined> {
  const found = await queryKeys({
    IndexName: 'GSI2',
    KeyConditionExpression: 'GSI2PK = :pk',
    ExpressionAttributeValues: { ':pk': `APIKEYID#${apiKeyPk}` },
  });
  const current = found[0];
  if (!current) return undefined;
  if (current.revokedAt) return current;
  try {
    const { Attributes } = await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(current.keyHash),
        UpdateExpression: 'SET revokedAt = :at',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':at': at.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return Attributes ? toRecord(Attributes) : undefined;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

export async function listApiKeys(pixelId: string): Promise<ApiKeyRecord[]> {
  return queryKeys({
    IndexName: 'GSI1',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': `PIXEL#${pixelId}#APIKEYS` },
  });
}

async function queryKeys(input: { IndexName: string; KeyConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> }): Promise<ApiKeyRecord[]> {
  return (await queryAll(input)).map(toRecord);
}

function toRecord(item: Record<string, unknown>): ApiKeyRecord {
  const { apiKeyPk, keyHash, pixelId, name, scopes, hint, createdAt, expiresAt, revokedAt } = item as unknown as ApiKeyRecord;
  return {
    apiKeyPk,
    keyHash,
    pixelId,
    name,
    scopes,
    hint,
    createdAt,
    ...(expiresAt ? { expiresAt } : {}),
    ...(revokedAt ? { revokedAt } : {}),
  };
}
