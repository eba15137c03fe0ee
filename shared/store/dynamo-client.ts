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
  const client = traced(new DynamoDBClient(storeClientConfig(attemptTimeoutMs)));
  holdToRequestDeadline(client, attemptTimeoutMs);
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/** For calls on one item (get, put, update, delete). */
export const documentClient: DynamoDBDocumentClient = lazySingleton(() => documentClientWith(POINT_ATTEMPT_TIMEOUT_MS));

/** For calls on many items at once (batch reads and writes, query pages), which take longer. */
export const bulkDocumentClient: DynamoDBDocumentClient = lazySingleton(() => documentClientWith(BULK_ATTEMPT_TIMEOUT_MS));

export const tableName = (): string => requiredEnv('TABLE_NAME');
