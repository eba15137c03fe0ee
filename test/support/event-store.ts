import { gunzipSync } from 'node:zlib';
import { ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import { documentClient, tableName } from '../../shared/store/dynamo-client';

/** Every item of this test file's table. */
export async function wholeTable(): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let start: ScanCommandOutput['LastEvaluatedKey'];
  do {
    const page = await documentClient.send(new ScanCommand({ TableName: tableName(), ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/**
 * Every item of this test file's table, as text, with compressed attributes (log entries, event
 * pages) unpacked: what a leak check searches.
 */
export async function wholeTableText(): Promise<string> {
  return JSON.stringify(await wholeTable(), (_key, value: unknown) => (value instanceof Uint8Array ? unpacked(value) : value instanceof Set ? [...value] : value));
}

/**
 * The table's data as text, without the keys' quota counters (`rl_<policy>_count`, `_resetAt`):
 * every request counts against its key's quota, a rejected one too, and that is the only trace a
 * rejected request may leave.
 */
export async function tableDataText(): Promise<string> {
  const items = (await wholeTable()).map((item) => Object.fromEntries(Object.entries(item).filter(([name]) => !/^rl_[a-z]+_(count|resetAt)$/.test(name))));
  return JSON.stringify(items, (_key, value: unknown) => (value instanceof Uint8Array ? unpacked(value) : value instanceof Set ? [...value] : value));
}

function unpacked(bytes: Uint8Array): string {
  // gzip's magic number; anything else is shown as base64.
  return bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes).toString('utf8') : Buffer.from(bytes).toString('base64');
}
