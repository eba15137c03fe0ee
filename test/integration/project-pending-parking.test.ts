import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/workers/project-pending';
import { metrics } from '../../shared/config/metrics';
import { PENDING_RETRY } from '../../shared/pipeline/consumer';
import { bulkDocumentClient, documentClient, tableName } from '../../shared/store/dynamo-client';
import { readEvents } from '../../shared/store/event-repository';
import { appendLogEntry, logPartition, type LogEntry } from '../../shared/store/log-repository';
import { listParked } from '../../shared/store/pending-failures';
import { PENDING_PREFIX } from '../../shared/store/pending-index';
import { newEventId } from '../../shared/tracking/event-id';
import { toStoredEvent } from '../../shared/tracking/stored-event';
import { pageView } from '../support/event-fixtures';
import { useFreshTable } from '../support/fresh-table';
import { replayParkedCli } from '../support/pipeline';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const DAY = [new Date('2026-03-10T00:00:00Z'), new Date('2026-03-11T00:00:00Z')] as const;

beforeAll(async () => {
  await useFreshTable();
});
afterEach(() => vi.restoreAllMocks());

function entryOf(pixelId: string, eventId: string): LogEntry {
  const event = toStoredEvent(pageView({ eventId, timestamp: '2026-03-10T09:00:00Z' }) as never, { eventId, eventIdSource: 'client', receivedAt: NOW });
  return { pixelId, entryId: newEventId(NOW), acceptedAt: NOW.toISOString(), events: [event] };
}

/**
 * The store refuses the analytics store's live-file record of `pixelId`'s events (as DynamoDB
 * refuses an item past 400 KB, say), and,
 * with `failureRecords`, the consumer's record of the failure on the log item too (a store that
 * fails every write of that pixel). Returns how many writes it refused.
 */
function refuseWrites(pixelId: string, options: { failureRecords?: boolean } = {}): () => number {
  const refused = [`PIXEL#${pixelId}#PARQUET#`, ...(options.failureRecords ? [logPartition(pixelId)] : [])];
  let count = 0;
  for (const client of [documentClient, bulkDocumentClient]) {
    const send = client.send.bind(client);
    vi.spyOn(client, 'send').mockImplementation((async (command: unknown) => {
      if ((command instanceof PutCommand || command instanceof UpdateCommand) && refused.some((key) => JSON.stringify(command.input).includes(key))) {
        count++;
        throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), { name: 'ValidationException', $metadata: { httpStatusCode: 400 } });
      }
      return send(command as never);
    }) as never);
  }
  return () => count;
}

/**
 * The table's stream as the event source mapping hands it to the function: a record for each
 * write of an item whose new image is in the pending index (its filter), and nothing else.
 */
function streamOf(keys: ReadonlyArray<{ PK: string; SK: string }>) {
  let sequence = 1000;
  const delivered = new Map<string, string>();
  return async (): Promise<DynamoDBRecord[]> => {
    const records: DynamoDBRecord[] = [];
    for (const key of keys) {
      const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
      const image = JSON.stringify(Item, (_name, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64') : value));
      const id = `${key.PK}\u0000${key.SK}`;
      const before = delivered.get(id);
      delivered.set(id, image);
      if (!Item || image === before || !String(Item.GSI2PK ?? '').startsWith(PENDING_PREFIX)) continue;
      records.push({ eventName: before === undefined ? 'INSERT' : 'MODIFY', dynamodb: { SequenceNumber: String(++sequence), NewImage: marshall(Item) as never } });
    }
    return records;
  };
}

describe('the stream consumer function, with a pixel whose entries keep failing', () => {
  it('succeeds every batch, projects the other pixel at once, and parks the failing entry at its last attempt: the stream stops delivering it', async () => {
    const [poisoned, healthy] = ['px_stream_poisoned', 'px_stream_healthy'];
    const failing = entryOf(poisoned, 'poisoned-1');
    const fine = entryOf(healthy, 'healthy-1');
    for (const entry of [failing, fine]) await appendLogEntry(entry);
    const refused = refuseWrites(poisoned);
    const parkedMetric = vi.spyOn(metrics, 'addMetric');
    const nextBatch = streamOf([failing, fine].map((entry) => ({ PK: logPartition(entry.pixelId), SK: entry.entryId })));

    const answers: unknown[] = [];
    for (let records = await nextBatch(); records.length > 0 && answers.length < 3 * PENDING_RETRY.maxAttempts; records = await nextBatch()) {
      answers.push(await handler({ Records: records }));
      if (answers.length === 1) expect((await readEvents(healthy, ...DAY)).map((event) => event.eventId)).toEqual(['healthy-1']);
    }

    // One delivery a failure: the insert, then each recorded failure's MODIFY, until the last parks it.
    expect(answers).toEqual(Array.from({ length: PENDING_RETRY.maxAttempts }, () => ({ batchItemFailures: [] })));
    expect(refused()).toBe(PENDING_RETRY.maxAttempts);
    expect(await listParked(poisoned)).toEqual([
      expect.objectContaining({ id: failing.entryId, attempts: PENDING_RETRY.maxAttempts, errorName: 'ValidationException', errorMessage: 'Item size has exceeded the maximum allowed size' }),
    ]);
    const emitted = parkedMetric.mock.calls.filter(([name]) => name === 'EntriesParked').map(([, , value]) => value);
    expect(emitted.reduce((sum, value) => sum + value, 0)).toBe(1);
  });

  it('reports a record as a batch item failure, for Lambda to retry, when even its failure cannot be recorded; `replay-parked --pending` has the stream deliver it again', async () => {
    const [poisoned, healthy] = ['px_stream_store_down', 'px_stream_beside'];
    const failing = entryOf(poisoned, 'down-1');
    const fine = entryOf(healthy, 'beside-1');
    for (const entry of [fine, failing]) await appendLogEntry(entry);
    refuseWrites(poisoned, { failureRecords: true });
    const nextBatch = streamOf([fine, failing].map((entry) => ({ PK: logPartition(entry.pixelId), SK: entry.entryId })));
    const records = await nextBatch();

    expect(await handler({ Records: records })).toEqual({ batchItemFailures: [{ itemIdentifier: records[1]!.dynamodb!.SequenceNumber }] });
    expect((await readEvents(healthy, ...DAY)).map((event) => event.eventId)).toEqual(['beside-1']);
    const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: logPartition(poisoned), SK: failing.entryId }, ConsistentRead: true }));
    expect(Item).toMatchObject({ GSI2PK: expect.stringMatching(/^PENDING#/) });
    expect(Item).not.toHaveProperty('attempts');

    // Past Lambda's retries the batch is in the on-failure queue and nothing delivers the item
    // again; once the store is back, the operator has it delivered.
    vi.restoreAllMocks();
    expect(await nextBatch()).toEqual([]);
    const replayed = await replayParkedCli('--pending', '--pixel', poisoned);
    expect(replayed).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Replayed 1 of 1 pending item\(s\) of 1 pixel\(s\)/) });
    const again = await nextBatch();
    expect(again).toEqual([expect.objectContaining({ eventName: 'MODIFY' })]);
    expect(await handler({ Records: again })).toEqual({ batchItemFailures: [] });
    expect((await readEvents(poisoned, ...DAY)).map((event) => event.eventId)).toEqual(['down-1']);
  }, 60_000);
});
