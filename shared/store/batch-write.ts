import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mapWithConcurrency } from '../map-with-concurrency';
import { bulkDocumentClient, tableName } from './dynamo-client';

export type WriteRequest = { PutRequest: { Item: Record<string, unknown> } } | { DeleteRequest: { Key: Record<string, unknown> } };

/** DynamoDB's cap on one BatchWriteItem call. */
const MAX_BATCH = 25;
const MAX_ATTEMPTS = 8;

/**
 * Writes any number of items, 25 a call. DynamoDB may accept a batch only partly (throttling,
 * partition limits) and hand back the rest as UnprocessedItems, which is not an error: those are
 * retried with exponential backoff, and only a batch still unprocessed after 8 attempts fails.
 * `concurrency` overlaps independent batches for bulk imports; the order of items across batches
 * is then not defined, so callers only pass requests for distinct keys.
 */
export async function batchWrite(requests: readonly WriteRequest[], options: { concurrency?: number } = {}): Promise<void> {
  const batches: WriteRequest[][] = [];
  for (let start = 0; start < requests.length; start += MAX_BATCH) batches.push(requests.slice(start, start + MAX_BATCH));
  await mapWithConcurrency(batches, options.concurrency ?? 1, writeOneBatch);
}

async function writeOneBatch(batch: WriteRequest[]): Promise<void> {
  let pending = batch;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === MAX_ATTEMPTS) throw new Error(`DynamoDB left batch writes unprocessed after ${MAX_ATTEMPTS} attempts`);
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 25 * 2 ** attempt));
    const { UnprocessedItems } = await bulkDocumentClient.send(new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }));
    pending = (UnprocessedItems?.[tableName()] ?? []) as WriteRequest[];
  }
}
