import { ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../../shared/store/dynamo-client';

/** Every item of this test file's table, as text: what a leak check searches. */
export async function wholeTableText(): Promise<string> {
  const items: unknown[] = [];
  let start: ScanCommandOutput['LastEvaluatedKey'];
  do {
    const page = await documentClient.send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return JSON.stringify(items);
}
