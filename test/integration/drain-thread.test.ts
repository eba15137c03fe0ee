import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDrainThread } from '../../lib/local/drain-thread';
import type { RunningDrain } from '../../shared/pipeline/drain';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { logPartition } from '../../shared/store/log-repository';
import { pendingShardOf } from '../../shared/store/pending-index';
import { ingestEvents } from '../../shared/tracking/ingest-service';
import { pageView } from '../support/event-fixtures';
import { useFreshTable } from '../support/fresh-table';

const NOW = new Date('2026-03-10T12:00:00.000Z');
/** Longer than any test here may take: an entry found before it only by a timer would fail the test. */
const NEVER_MS = 600_000;
const PROJECTED_TIMEOUT_MS = 30_000;

let drain: RunningDrain | undefined;

beforeAll(async () => {
  // The thread reads the store's settings from the environment it is started with.
  await useFreshTable();
});
afterEach(async () => {
  await drain?.close();
  drain = undefined;
  vi.restoreAllMocks();
});

/** Appends one event for a pixel with nothing appended yet, as the events API does, and returns its log entry's id. */
async function append(pixelId: string, eventId: string): Promise<string> {
  await ingestEvents(pixelId, { form: 'batch', events: [pageView({ eventId })] } as never, NOW);
  const { Items = [] } = await documentClient.send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': logPartition(pixelId) }, ConsistentRead: true }),
  );
  expect(Items).toHaveLength(1);
  return Items[0]!.SK as string;
}

const projected = async (pixelId: string, entryId: string) =>
  typeof (await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: logPartition(pixelId), SK: entryId }, ConsistentRead: true }))).Item?.projectedAt === 'string';

const waitProjected = (pixelId: string, entryId: string) =>
  vi.waitFor(async () => expect(await projected(pixelId, entryId)).toBe(true), { timeout: PROJECTED_TIMEOUT_MS, interval: 50 });

/** Pixels whose pending items fall in different shards. */
function pixelsInDistinctShards(prefix: string, count: number): string[] {
  const byShard = new Map<number, string>();
  for (let i = 0; byShard.size < count; i++) {
    const pixelId = `${prefix}_${i}`;
    if (!byShard.has(pendingShardOf(pixelId))) byShard.set(pendingShardOf(pixelId), pixelId);
  }
  return [...byShard.values()];
}

describe('the drain on a thread of its own', () => {
  it("projects what this thread appends, woken by this thread's appends, though its shards sleep past the test", async () => {
    drain = await startDrainThread({ idlePollMs: NEVER_MS });
    const [first, second] = pixelsInDistinctShards('px_thread_wake', 2) as [string, string];
    await waitProjected(first, await append(first, 'wake-1'));
    // By now every other shard has polled, found nothing and gone to sleep until woken.
    await waitProjected(second, await append(second, 'wake-2'));
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
    const entryId = await append(pixelId, 'restart-1');
    await waitProjected(pixelId, entryId);
    expect(errors.mock.calls.map((args) => String(args[0]))).toContainEqual(expect.stringMatching(/the projection thread ended \(exit code 1\); starting it again/));
  });

  it('stops once the pass in flight is done', async () => {
    drain = await startDrainThread();
    const closed = drain.close();
    drain = undefined;
    await expect(Promise.race([closed.then(() => 'closed'), new Promise((resolve) => setTimeout(resolve, 20_000, 'still running'))])).resolves.toBe('closed');
  });
});
