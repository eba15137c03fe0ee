import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requiredEnv } from '../config/env';
import { lazySingleton } from '../config/lazy';
import { traced } from '../config/tracing';
import { BULK_ATTEMPT_TIMEOUT_MS, POINT_ATTEMPT_TIMEOUT_MS, holdToRequestDeadline, storeClientConfig } from './sdk-config';

/**
 * Built once per container, on first use (not at module load), and reused across invocations. Construction makes no network call;
 * the endpoint comes from the standard AWS_ENDPOINT_URL_DYNAMODB when running locally. Every
 * call is held to the current request's deadline (sdk-config.ts) and, deployed, traced (config/tracing.ts).
 */
function documentClientWith(attemptTimeoutMs: number): DynamoDBDocumentClient {
  const client = new DynamoDBClient(storeClientConfig(attemptTimeoutMs));
  // No SDK call is logged (no logger is configured), yet the SDK's logger middleware copies every
  // response through its sensitive-data filter for the no-op logger's sake: for a query reading
  // thousands of items that walk cost more than decoding them.
  client.middlewareStack.remove('loggerMiddleware');
  holdToRequestDeadline(client, attemptTimeoutMs);
  return DynamoDBDocumentClient.from(traced(client), { marshallOptions: { removeUndefinedValues: true } });
}

/** For calls on one item (get, put, update, delete). */
export const documentClient: DynamoDBDocumentClient = lazySingleton(() => documentClientWith(POINT_ATTEMPT_TIMEOUT_MS));

/** For calls on many items at once (batch reads and writes, query pages), which take longer. */
export const bulkDocumentClient: DynamoDBDocumentClient = lazySingleton(() => documentClientWith(BULK_ATTEMPT_TIMEOUT_MS));

export const tableName = (): string => requiredEnv('TABLE_NAME');
