import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { requiredEnv } from '../config/env';

/**
 * Built once per container and reused across invocations. Construction makes no network call;
 * the endpoint comes from the standard AWS_ENDPOINT_URL_DYNAMODB when running locally.
 */
export const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), {
  marshallOptions: { removeUndefinedValues: true },
});

export const tableName = (): string => requiredEnv('TABLE_NAME');
