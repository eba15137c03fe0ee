import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDrainThread } from '../../lib/local/drain-thread';
import { startDrain, type RunningDrain } from '../../shared/pipeline/drain';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { encodeEvents, logPartition } from '../../shared/store/log-repository';
import { PENDING_SHARDS, pendingAttributes, pendingShardOf } from '../../shared/store/pending-index';
import { ingestEvents } from '../../shared/tracking/ingest-service';
import { newEventId } from '../../shared/tracking/event-id';
import { toStoredEvent } from '../../shared/tracking/stored-event';
import { pageView } from '../support/event-fixtures';
import { useFreshTable } from '../support/fresh-table';

const NOW = new Date('2026-03-10T12:00:00.000Z');
/** Longer than any test here may take: a shard woken before it only by its timer would fail the test. */
const NEVER_MS = 600_000;

let drain: RunningDrain | undefined;

beforeAll(async () => {
  // A drain thread reads the store's settings from the environment it is started with.
  await useFreshTable();
});
afterEach(async () => {
  await drain?.close();
  drain = undefined;
  vi.restoreAllMocks();
});

/** Counts the drain's polls of the pending index that found nothing. */
function countEmptyPolls(): { count: () => number } {
  const send = documentClient.send.bind(documentClient);
  let empty = 0;
  vi.spyOn(documentClient, 'send').mockImplementation((async (command: unknown) => {
    const output = (await send(command as never)) as { Items?: unknown[] };
    if (command instanceof QueryCommand && command.input.IndexName === 'GSI2' && (output.Items ?? []).length === 0) empty++;
    return output;
  }) as typeof documentClient.send);
  return { count: () => empty };
}

const projectedAt = async (pixelId: string, entryId: string) =>
  (await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: logPartition(pixelId), SK: entryId }, ConsistentRead: true }))).Item?.projectedAt as string | undefined;

async function entryIdsOf(pixelId: string): Promise<string[]> {
  const { Items = [] } = await documentClient.send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': logPartition(pixelId) }, ConsistentRead: true }),
  );
  return Items.map((item) => item.SK as string);
}

/** Appends one event for a pixel with nothing appended yet, as the events API does, and returns its log entry's id. */
async function appendOne(pixelId: string, eventId: string): Promise<string> {
  await ingestEvents(pixelId, { form: 'batch', events: [pageView({ eventId })] } as never, NOW);
  const entryIds = await entryIdsOf(pixelId);
  expect(entryIds).toHaveLength(1);
  return entryIds[0]!;
}

const waitProjected = (pixelId: string, entryId: string) =>
  vi.waitFor(async () => expect(await projectedAt(pixelId, entryId)).toBeTypeOf('string'), { timeout: 20_000, interval: 50 });

/** What a stop came to within 20 s: `closed`, or `still running`. */
const closedWithin20s = (closing: Promise<void>) => Promise.race([closing.then(() => 'closed'), new Promise((resolve) => setTimeout(resolve, 20_000, 'still running'))]);

describe('the local drain', () => {
  it('projects an entry this process appends at once, though every shard sleeps past the test', async () => {
    const polls = countEmptyPolls();
    drain = startDrain({ idlePollMs: NEVER_MS });
    // Every shard has polled, found nothing and gone to sleep: only a wake-up can find the entry now.
    await vi.waitFor(() => expect(polls.count()).toBeGreaterThanOrEqual(PENDING_SHARDS), { timeout: 10_000 });
    const pixelId = 'px_drain_wake';
    await waitProjected(pixelId, await appendOne(pixelId, 'wake-1'));
  });

  it('stops at once when closed while a pass is in flight, though its shard would then sleep past the test', async () => {
    const send = documentClient.send.bind(documentClient);
    let release = () => undefined as void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let heldPolls = 0;
    vi.spyOn(documentClient, 'send').mockImplementation((async (command: unknown) => {
      if (command instanceof QueryCommand && command.input.IndexName === 'GSI2') {
        heldPolls++;
        await held;
      }
      return send(command as never);
    }) as typeof documentClient.send);
    const running = startDrain({ idlePollMs: NEVER_MS });
    await vi.waitFor(() => expect(heldPolls).toBe(PENDING_SHARDS), { timeout: 10_000 });
    const closed = running.close();
    // The passes end after the close: each finds nothing, and must not go to sleep.
    release();
    await expect(closedWithin20s(closed)).resolves.toBe('closed');
  });

  it('finds an entry another process wrote (no wake-up here) on its idle poll', async () => {
    drain = startDrain({ idlePollMs: 200 });
    const pixelId = 'px_drain_other_process';
    const entryId = newEventId(NOW);
    const events = [toStoredEvent(pageView({ eventId: 'other-1' }) as never, { eventId: 'other-1', eventIdSource: 'client', receivedAt: NOW })];
    // As another process's append would leave it: this process's listeners hear nothing of it.
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: { PK: logPartition(pixelId), SK: entryId, kind: 'events', pixelId, entryId, acceptedAt: NOW.toISOString(), count: 1, data: encodeEvents(events), ...pendingAttributes(pixelId, entryId) },
      }),
    );
    await waitProjected(pixelId, entryId);
  });
});

/** Pixels whose pending items fall in different shards. */
function pixelsInDistinctShards(prefix: string, count: number): string[] {
  const byShard = new Map<number, string>();
  for (let i = 0; byShard.size < count; i++) {
    const pixelId = `${prefix}_${i}`;
    if (!byShard.has(pendingShardOf(pixelId))) byShard.set(pendingShardOf(pixelId), pixelId);
  }
  return [...byShard.values()];
}

describe('the local drain on a thread of its own', () => {
  it("projects what this thread appends, woken by this thread's appends, though its shards sleep past the test", async () => {
    drain = await startDrainThread({ idlePollMs: NEVER_MS });
    const [first, second] = pixelsInDistinctShards('px_thread_wake', 2) as [string, string];
    await waitProjected(first, await appendOne(first, 'thread-wake-1'));
    // By now every other shard has polled, found nothing and gone to sleep until woken.
    await waitProjected(second, await appendOne(second, 'thread-wake-2'));
  });

  it('starts a thread that ended on its own again, and that one projects what was pending', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    process.env.DRAIN_THREAD_CRASH_FLAG = join(mkdtempSync(join(tmpdir(), 'drain-thread-')), 'crashed');
    try {
      drain = await startDrainThread({ preload: ['test/support/drain-thread-crash-once.ts'] });
    } finally {
      delete process.env.DRAIN_THREAD_CRASH_FLAG;
    }
    const pixelId = 'px_thread_restart';
    await waitProjected(pixelId, await appendOne(pixelId, 'thread-restart-1'));
    expect(errors.mock.calls.map((args) => String(args[0]))).toContainEqual(expect.stringMatching(/the projection thread ended \(exit code 1\); starting it again/));
  });

  it('a stop while a thread that ended on its own is starting again waits for that thread and ends it', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const dir = mkdtempSync(join(tmpdir(), 'drain-thread-'));
    process.env.DRAIN_THREAD_CRASH_FLAG = join(dir, 'crashed');
    process.env.DRAIN_THREAD_HOLD = dir;
    try {
      const running = await startDrainThread({ preload: ['test/support/drain-thread-crash-once.ts'] });
      // The append's wake-up ends the first thread; its restart then holds before its drain starts.
      await appendOne('px_thread_stop_restart', 'thread-stop-restart-1');
      await vi.waitFor(() => expect(existsSync(join(dir, 'holding'))).toBe(true), { timeout: 20_000, interval: 20 });
      let settled = false;
      const closing = running.close().finally(() => (settled = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(settled).toBe(false);
      writeFileSync(join(dir, 'release'), '');
      await expect(closedWithin20s(closing)).resolves.toBe('closed');
      // The thread the stop ended is not taken for one that failed: nothing is restarted, and nothing else was logged.
      expect(errors.mock.calls.map((args) => String(args[0]))).toEqual([expect.stringMatching(/the projection thread failed/), expect.stringMatching(/the projection thread ended \(exit code 1\); starting it again/)]);
    } finally {
      // A thread still holding (the test failed before releasing it) must not hold for ever.
      writeFileSync(join(dir, 'release'), '');
      delete process.env.DRAIN_THREAD_CRASH_FLAG;
      delete process.env.DRAIN_THREAD_HOLD;
    }
  });

  it('stops once the pass in flight is done', async () => {
    const running = await startDrainThread();
    await expect(closedWithin20s(running.close())).resolves.toBe('closed');
  });
});
