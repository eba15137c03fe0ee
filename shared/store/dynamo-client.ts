import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requiredEnv } from '../config/env';
import { holdToRequestDeadline, storeClientConfig } from './sdk-config';

/**
 * Built once per container and reused across invocations. Construction makes no network call;
 * the endpoint comes from the standard AWS_ENDPOINT_URL_DYNAMODB when running locally. Every
 * call is held to the current request's deadline (sdk-config.ts).
 */
const client = new DynamoDBClient(storeClientConfig);
holdToRequestDeadline(client);

export const documentClient = DynamoDBDocumentClient.from(client, {
  marshallOptions: { removeUndefinedValues: true },
});

export const tableName = (): string => requiredEnv('TABLE_NAME');
