import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/workers/project-pending';
import { noteAppend, notedCompactions, runNotedCompactions } from '../../shared/analytics/store/compaction-runner';
import { EVENTS_TABLE } from '../../shared/analytics/store/tables';
import { levelOf } from '../../shared/analytics/store/compaction-plan';
import { metrics } from '../../shared/config/metrics';
import { startDrain, type RunningDrain } from '../../shared/pipeline/drain';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { appendLogEntry, logPartition } from '../../shared/store/log-repository';
import { pendingShardOf } from '../../shared/store/pending-index';
import { DATE, answers, appendBatch, entryIdOf, entryOf, liveByDate } from '../support/compaction-fixtures';
import { useFreshTable } from '../support/fresh-table';

/*
 * Compaction as the consumer runs it: a pixel's appends leave a date due, and the consumer compacts
 * it off the projection path (the stream function after its batch, the local drain beside its
 * passes). A compaction's failure never fails a projection, and a slow one holds up no pixel.
 */
let drain: RunningDrain | undefined;

beforeAll(async () => {
  await useFreshTable();
});
afterEach(async () => {
  vi.restoreAllMocks();
  await drain?.close();
  drain = undefined;
});

/** Fails, or holds up, the compactions of one pixel's date at their first write (the lease). */
function onLease(pixelId: string, date: string, act: () => Promise<void>): void {
  const send = documentClient.send.bind(documentClient);
  vi.spyOn(documentClient, 'send').mockImplementation((async (command: unknown) => {
    if (command instanceof UpdateCommand && String(command.input.UpdateExpression).startsWith('SET compactor') && command.input.Key?.PK === `PIXEL#${pixelId}#PARQUET#events` && command.input.Key?.SK === date) await act();
    return send(command as never);
  }) as never);
}

/** Fixture entries whose events all lie on DATE (every third entry has one on the next date too). */
const ON_DATE = Array.from({ length: 40 }, (_, i) => i + 1).filter((n) => n % 3 !== 0);

/** Appends entry `n` of the fixtures to a pixel's log, pending, as the events API does. */
async function appendEntry(pixelId: string, n: number): Promise<void> {
  await appendLogEntry({ pixelId, entryId: entryIdOf(n), acceptedAt: new Date().toISOString(), events: entryOf(n).events });
}

/** The stream record of a pending log item, as the table's stream hands it to the function. */
async function recordOf(pixelId: string, n: number): Promise<DynamoDBRecord> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: logPartition(pixelId), SK: entryIdOf(n) }, ConsistentRead: true }));
  return { eventName: 'INSERT', dynamodb: { SequenceNumber: String(100 + n), NewImage: marshall(Item!, { removeUndefinedValues: true }) as never } };
}

const context = { getRemainingTimeInMillis: () => 10_000 };

const projected = async (pixelId: string, n: number) =>
  typeof (await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: logPartition(pixelId), SK: entryIdOf(n) }, ConsistentRead: true }))).Item?.projectedAt === 'string';

describe('the stream function', () => {
  it('compacts a date once a batch leaves 16 files in it, after the batch is projected; every answer is as before', async () => {
    const pixelId = 'px_stream_compacts';
    const reference = 'px_stream_compacts_ref';
    const entries = ON_DATE.slice(0, 16);
    for (const n of entries) {
      await appendEntry(pixelId, n);
      await appendEntry(reference, n);
    }
    const added = vi.spyOn(metrics, 'addMetric');
    // One record a batch: one file a batch, the 16th leaves the date due.
    for (const [index, n] of entries.entries()) {
      expect(await handler({ Records: [await recordOf(pixelId, n)] }, context)).toEqual({ batchItemFailures: [] });
      expect((await liveByDate(pixelId))[DATE]).toHaveLength(index < 15 ? index + 1 : 1);
    }
    // All in one batch: one file, nothing due.
    await handler({ Records: await Promise.all(entries.map((n) => recordOf(reference, n))) }, context);

    const live = await liveByDate(pixelId);
    expect(live[DATE]).toHaveLength(1);
    expect(levelOf(live[DATE]![0]!)).toBe(1);
    expect(await answers(pixelId)).toEqual(await answers(reference));
    expect(added.mock.calls.filter(([name]) => name === 'FilesCompacted').map(([, , value]) => value)).toEqual([16]);
  });

  it('a compaction that fails fails no projection: the batch succeeds, its entries are projected, and the next append notes the date again', async () => {
    const pixelId = 'px_stream_compaction_fails';
    for (const n of ON_DATE.slice(0, 15)) await appendBatch(pixelId, [n]);
    const [last, next] = ON_DATE.slice(15) as [number, number];
    await appendEntry(pixelId, last);
    // The date's compaction fails at its first write (the lease).
    onLease(pixelId, DATE, async () => {
      throw Object.assign(new Error('injected'), { name: 'InternalServerError' });
    });
    const added = vi.spyOn(metrics, 'addMetric');
    expect(await handler({ Records: [await recordOf(pixelId, last)] }, context)).toEqual({ batchItemFailures: [] });
    expect(await projected(pixelId, last)).toBe(true);
    expect(added.mock.calls.filter(([name]) => name === 'CompactionFailures').map(([, , value]) => value)).toEqual([1]);
    expect((await liveByDate(pixelId))[DATE]).toHaveLength(16);
    vi.restoreAllMocks();

    // The date is noted again by its next append, and compacted then.
    expect(notedCompactions().filter((entry) => entry.pixelId === pixelId)).toEqual([]);
    await appendEntry(pixelId, next);
    expect(await handler({ Records: [await recordOf(pixelId, next)] }, context)).toEqual({ batchItemFailures: [] });
    expect((await liveByDate(pixelId))[DATE]).toHaveLength(1);
  });

  it('starts no compaction without time left in the invocation: the date stays noted for the next one', async () => {
    const pixelId = 'px_stream_no_time';
    for (const n of ON_DATE.slice(0, 15)) await appendBatch(pixelId, [n]);
    const last = ON_DATE[15]!;
    await appendEntry(pixelId, last);
    await handler({ Records: [await recordOf(pixelId, last)] }, { getRemainingTimeInMillis: () => 2_000 });
    expect(await projected(pixelId, last)).toBe(true);
    expect((await liveByDate(pixelId))[DATE]).toHaveLength(16);
    expect(notedCompactions()).toContainEqual({ table: 'events', pixelId, date: DATE, mode: 'tiered' });
    await runNotedCompactions({ pixelId });
    expect((await liveByDate(pixelId))[DATE]).toHaveLength(1);
  });
});

describe('what an append notes', () => {
  it('the first file of a date compacts the date before it whole; a date ahead of the clock closes nothing', async () => {
    const pixelId = 'px_closes_previous';
    // Entries with an event on the next date too: NEXT_DATE gets its first file with the first of them.
    for (const n of [1, 2, 4, 5]) await appendBatch(pixelId, [n]);
    expect((await liveByDate(pixelId))[DATE]).toHaveLength(4);
    await appendBatch(pixelId, [6]);
    expect(notedCompactions()).toContainEqual({ table: 'events', pixelId, date: DATE, mode: 'whole' });
    await runNotedCompactions({ pixelId });
    expect((await liveByDate(pixelId))[DATE]).toHaveLength(1);

    // An event a day ahead of the clock: today is not closed by it.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const today = new Date().toISOString().slice(0, 10);
    noteAppend(EVENTS_TABLE, pixelId, { date: tomorrow, files: ['x'], version: 1 });
    expect(notedCompactions().filter((entry) => entry.pixelId === pixelId && entry.date === today)).toEqual([]);
  });
});

describe('the local drain', () => {
  it('compacts beside its passes: a neighbour in the same shard is projected while a compaction is held up', async () => {
    const pixelId = 'px_drain_compacts';
    // A neighbour in the same shard of the pending index.
    const neighbour = Array.from({ length: 200 }, (_, i) => `px_drain_neighbour_${i}`).find((id) => pendingShardOf(id) === pendingShardOf(pixelId))!;
    for (const n of ON_DATE.slice(0, 15)) await appendBatch(pixelId, [n]);

    // The pixel's compaction waits at its first write until the test lets it go.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let compacting = false;
    onLease(pixelId, DATE, async () => {
      compacting = true;
      await held;
    });

    drain = startDrain({ idlePollMs: 50 });
    await appendEntry(pixelId, ON_DATE[15]!);
    await vi.waitFor(() => expect(compacting).toBe(true), { timeout: 20_000, interval: 20 });
    await appendEntry(neighbour, 1);
    await vi.waitFor(async () => expect(await projected(neighbour, 1)).toBe(true), { timeout: 20_000, interval: 20 });
    // Projected while the compaction still waits.
    expect((await liveByDate(pixelId))[DATE]).toHaveLength(16);

    release();
    await vi.waitFor(async () => expect((await liveByDate(pixelId))[DATE]).toHaveLength(1), { timeout: 20_000, interval: 50 });
  });

  it('a stop lets the compaction in flight finish', async () => {
    const pixelId = 'px_drain_stop';
    for (const n of ON_DATE.slice(0, 15)) await appendBatch(pixelId, [n]);
    let started = false;
    onLease(pixelId, DATE, async () => {
      started = true;
    });
    drain = startDrain({ idlePollMs: 50 });
    await appendEntry(pixelId, ON_DATE[15]!);
    await vi.waitFor(() => expect(started).toBe(true), { timeout: 20_000, interval: 5 });
    await drain.close();
    drain = undefined;
    expect((await liveByDate(pixelId))[DATE]).toHaveLength(1);
  });
});
