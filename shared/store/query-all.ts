import { paginateQuery, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { bulkDocumentClient, tableName } from './dynamo-client';

/**
 * Every item a Query on the service table matches, following DynamoDB's 1 MB pages. For reads
 * whose whole result is needed at once (a pixel's ads, keys, views, rates, one day's events).
 */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName'>): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  for await (const page of paginateQuery({ client: bulkDocumentClient }, { TableName: tableName(), ...input })) {
    items.push(...(page.Items ?? []));
  }
  return items;
}
