import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DEFAULT_RATE_LIMITS, type RateLimit, type RateLimitPolicyName, type RateLimitState } from '../auth/rate-limit';
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
  /** Quotas set when the key was minted; a policy not named here has the default (auth/rate-limit.ts). */
  rateLimits?: Partial<Record<RateLimitPolicyName, RateLimit>>;
}

const keyOf = (keyHash: string) => ({ PK: `APIKEY#${keyHash}`, SK: 'APIKEY' });

export async function findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName(), Key: keyOf(keyHash), ConsistentRead: true }),
  );
  return Item ? toRecord(Item) : undefined;
}

/** The attributes of the key item that count one policy's window. */
const counterNames = (policy: RateLimitPolicyName) => ({ '#count': `rl_${policy}_count`, '#reset': `rl_${policy}_resetAt` });

/**
 * Reads a key and counts `amount` against one of its quotas (a request, or a query's cost
 * units), in one round trip: an UpdateItem on the key's item, atomic, so every Lambda instance
 * counts on the same counter. Undefined when no key has that hash (nothing is written then).
 *
 * The common case is one call: ADD to the open window. When the window is closed (or never
 * opened), a second call opens a new one at 1, conditionally, so of two requests racing to open
 * it one opens and the other counts into it.
 */
export async function admitRequest(
  keyHash: string,
  policy: RateLimitPolicyName,
  now: number,
  amount = 1,
): Promise<{ record: ApiKeyRecord; rateLimit: RateLimitState } | undefined> {
  const names = counterNames(policy);
  const countIntoOpenWindow = () =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(keyHash),
        UpdateExpression: 'ADD #count :amount',
        ConditionExpression: 'attribute_exists(PK) AND #reset > :now',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':amount': amount, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
  const openWindow = () =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(keyHash),
        // The window's length is the key's own when it has one, read in the same expression.
        UpdateExpression: 'SET #count = :amount, #reset = :now + if_not_exists(#limits.#policy.#windowMs, :defaultWindowMs)',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(#reset) OR #reset <= :now)',
        ExpressionAttributeNames: { ...names, '#limits': 'rateLimits', '#policy': policy, '#windowMs': 'windowMs' },
        ExpressionAttributeValues: { ':amount': amount, ':now': now, ':defaultWindowMs': DEFAULT_RATE_LIMITS[policy].windowSeconds * 1000 },
        ReturnValues: 'ALL_NEW',
      }),
    );
  for (const attempt of [countIntoOpenWindow, openWindow, countIntoOpenWindow]) {
    try {
      const { Attributes } = await attempt();
      if (!Attributes) return undefined;
      const record = toRecord(Attributes);
      return {
        record,
        rateLimit: {
          policy,
          limit: record.rateLimits?.[policy] ?? DEFAULT_RATE_LIMITS[policy],
          count: Number(Attributes[names['#count']]),
          resetAt: Number(Attributes[names['#reset']]),
        },
      };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
  // Every condition failed: the item does not exist (a window that just closed would have let
  // the second call open a new one, and one just opened lets the third count into it).
  return undefined;
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
        // Stored in milliseconds: the counting update adds it to the request's epoch-ms time.
        ...(record.rateLimits
          ? { rateLimits: Object.fromEntries(Object.entries(record.rateLimits).map(([policy, limit]) => [policy, { quota: limit.quota, windowMs: limit.windowSeconds * 1000 }])) }
          : {}),
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
  const storedLimits = item.rateLimits as Partial<Record<RateLimitPolicyName, { quota: number; windowMs: number }>> | undefined;
  const rateLimits = storedLimits
    ? Object.fromEntries(Object.entries(storedLimits).map(([policy, limit]) => [policy, { quota: Number(limit.quota), windowSeconds: Number(limit.windowMs) / 1000 }]))
    : undefined;
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
    ...(rateLimits ? { rateLimits } : {}),
  };
}
