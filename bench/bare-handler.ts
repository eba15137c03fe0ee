import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * The baseline of `init.<routeId>` and `middleware.<routeId>`: a function that builds the DynamoDB
 * document client at load, as any function of the service must eventually, and nothing else. Bundled
 * with the deployed esbuild settings like every route, so a route's ratio to it is what our own code
 * adds to a cold start.
 */
export const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } });

export const handler = async (): Promise<{ statusCode: number; headers: Record<string, string>; body: string }> => ({
  statusCode: 200,
  headers: { 'content-type': 'application/json' },
  body: '{}',
});
