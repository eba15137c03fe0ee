import { gunzipSync, gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isWriteOutcomeUnknown } from '../faults';
import { documentClient, tableName } from './dynamo-client';

/**
 * Idempotency records, one per pixel, route and client key (see table-design.ts):
 *
 *   `PK=PIXEL#<pixelId>#IDEMPOTENCY`  `SK=<METHOD> <route path>#<key>`
 *
 * { state: in_progress | completed, fingerprint, token, leaseUntil (ms), response (gzipped JSON), ttl }
 *
 * A record is claimed with a conditional put before the request runs, so of two concurrent
 * requests with one key exactly one runs. `ttl` (epoch seconds) ends the retention window:
 * DynamoDB deletes the item some time after, and until then (and always locally, where nothing
 * deletes it) a record past its `ttl` is treated as absent. A claim whose request crashed frees
 * itself when its lease ends.
 */
export interface IdempotencyScope {
  pixelId: string;
  /** `PUT /accounts/api/account/settings/order`: the route, as the route table names it. */
  route: string;
  key: string;
}

export interface StoredResponse {
  statusCode: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type Claim =
  | { kind: 'claimed'; token: string }
  | { kind: 'in_progress'; fingerprint: string }
  | { kind: 'completed'; fingerprint: string; response: StoredResponse };

/** DynamoDB's item limit is 400 KB; a response that does not fit compressed is not kept. */
const MAX_RESPONSE_BYTES = 350_000;

const keyOf = (scope: IdempotencyScope) => ({ PK: `PIXEL#${scope.pixelId}#IDEMPOTENCY`, SK: `${scope.route}#${scope.key}` });

/**
 * Claims the key for a request with this `fingerprint`, or reports the live record that holds it.
 * `now` is the request's time (it judges the retention window); the lease is judged by the clock.
 */
export async function claimIdempotencyKey(
  scope: IdempotencyScope,
  request: { fingerprint: string; now: Date; retentionSeconds: number; leaseMs: number },
): Promise<Claim> {
  const nowSeconds = Math.floor(request.now.getTime() / 1000);
  for (let tries = 0; ; tries++) {
    const token = randomUUID();
    try {
      await documentClient.send(
        new PutCommand({
          TableName: tableName(),
          Item: {
            ...keyOf(scope),
            state: 'in_progress',
            fingerprint: request.fingerprint,
            token,
            leaseUntil: Date.now() + request.leaseMs,
            ttl: nowSeconds + request.retentionSeconds,
            createdAt: request.now.toISOString(),
          },
          ConditionExpression: 'attribute_not_exists(PK) OR #ttl <= :nowSeconds OR (#state = :inProgress AND leaseUntil < :nowMs)',
          ExpressionAttributeNames: { '#ttl': 'ttl', '#state': 'state' },
          ExpressionAttributeValues: { ':nowSeconds': nowSeconds, ':inProgress': 'in_progress', ':nowMs': Date.now() },
        }),
      );
      return { kind: 'claimed', token };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException) && !isWriteOutcomeUnknown(error)) throw error;
      // A claim without an answer may have landed: the record says whose it is.
      const record = await readRecord(scope);
      if (record?.token === token) return { kind: 'claimed', token };
      if (isWriteOutcomeUnknown(error)) throw error;
      const live = record && (record.ttl as number) > nowSeconds;
      if (live && record.state === 'completed') {
        return { kind: 'completed', fingerprint: record.fingerprint as string, response: decodeResponse(record.response as Uint8Array) };
      }
      if (live && (record.leaseUntil as number) >= Date.now()) return { kind: 'in_progress', fingerprint: record.fingerprint as string };
      // The record expired or its lease ended between the put and the read: claim again.
      if (tries >= 2) throw error;
    }
  }
}

/**
 * Records the response of the request that holds the claim. False when it was not kept (too
 * large, or the claim was lost to an expired lease): the key is then released or left to expire.
 */
export async function completeIdempotencyKey(scope: IdempotencyScope, token: string, response: StoredResponse): Promise<boolean> {
  const encoded = gzipSync(JSON.stringify(response));
  if (encoded.byteLength > MAX_RESPONSE_BYTES) {
    await releaseIdempotencyKey(scope, token);
    return false;
  }
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(scope),
        UpdateExpression: 'SET #state = :completed, #response = :response REMOVE leaseUntil',
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#state': 'state', '#response': 'response', '#token': 'token' },
        ExpressionAttributeValues: { ':completed': 'completed', ':response': encoded, ':token': token },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Frees the key after a request that failed, so that its retry runs. */
export async function releaseIdempotencyKey(scope: IdempotencyScope, token: string): Promise<void> {
  try {
    await documentClient.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: keyOf(scope),
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#token': 'token' },
        ExpressionAttributeValues: { ':token': token },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

async function readRecord(scope: IdempotencyScope): Promise<Record<string, unknown> | undefined> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: keyOf(scope), ConsistentRead: true }));
  return Item;
}

function decodeResponse(bytes: Uint8Array): StoredResponse {
  return JSON.parse(gunzipSync(bytes).toString('utf8')) as StoredResponse;
}
