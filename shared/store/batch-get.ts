import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../map-with-concurrency';
import { bulkDocumentClient, tableName } from './dynamo-client';

export type ItemKey = { PK: string; SK: string };

/** DynamoDB's cap on one BatchGetItem call. */
const MAX_BATCH = 100;
const MAX_ATTEMPTS = 8;

/**
 * Reads any number of items by key, 100 a call, strongly consistent (a read-modify-write must see
 * the latest write). Keys DynamoDB hands back as UnprocessedKeys are read again: at once after a
 * call that returned items, with exponential backoff after one that returned none. Returns the
 * items found (unless `onItems` takes them); a missing key is simply absent, and order is not kept.
 */
export async function batchGet(
  keys: readonly ItemKey[],
  options: {
    concurrency?: number;
    /** Top-level attributes to read (the key is always read). */
    attributes?: readonly string[];
    /**
     * Called with each call's items as they arrive, so a reader can decode them while later calls
     * are in flight. The items are then not collected (batchGet returns none): kept until the last
     * call, a large read's items outlived several young-generation collections and were copied
     * into the old generation; handed over, they die young once decoded.
     */
    onItems?: (items: Array<Record<string, unknown>>) => void;
  } = {},
): Promise<Array<Record<string, unknown>>> {
  const batches: ItemKey[][] = [];
  for (let start = 0; start < keys.length; start += MAX_BATCH) batches.push(keys.slice(start, start + MAX_BATCH));
  const projection = options.attributes && {
    ProjectionExpression: ['PK', 'SK', ...options.attributes].map((_, i) => `#a${i}`).join(', '),
    ExpressionAttributeNames: Object.fromEntries(['PK', 'SK', ...options.attributes].map((name, i) => [`#a${i}`, name])),
  };
  return (await mapWithConcurrency(batches, options.concurrency ?? 1, (batch) => readOneBatch(batch, projection, options.onItems))).flat();
}

async function readOneBatch(
  batch: ItemKey[],
  projection?: { ProjectionExpression: string; ExpressionAttributeNames: Record<string, string> },
  onItems?: (items: Array<Record<string, unknown>>) => void,
): Promise<Array<Record<string, unknown>>> {
  const found: Array<Record<string, unknown>> = [];
  let pending: Array<Record<string, unknown>> = batch;
  // A call that returned items made progress (the store stops a response at its size cap, 16 MB in
  // DynamoDB and 1 MB in dynalite, and hands back the rest): go on at once. Only calls that returned
  // nothing (throttling) count as attempts and back off.
  for (let stalled = 0; pending.length > 0; ) {
    if (stalled === MAX_ATTEMPTS) throw new Error(`DynamoDB left batch reads unprocessed after ${MAX_ATTEMPTS} attempts`);
    if (stalled > 0) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** stalled));
    const { Responses, UnprocessedKeys } = await bulkDocumentClient.send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true, ...projection } } }),
    );
    const items = Responses?.[tableName()] ?? [];
    if (items.length > 0 && onItems) onItems(items);
    else found.push(...items);
    pending = UnprocessedKeys?.[tableName()]?.Keys ?? [];
    stalled = items.length > 0 ? 0 : stalled + 1;
  }
  return found;
}
