import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDrain, type RunningDrain } from '../../shared/pipeline/drain';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { encodeEvents, logPartition } from '../../shared/store/log-repository';
import { PENDING_SHARDS, pendingAttributes } from '../../shared/store/pending-index';
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

describe('the local drain', () => {
  it('projects an entry this process appends at once, though every shard sleeps past the test', async () => {
    const polls = countEmptyPolls();
    drain = startDrain({ idlePollMs: NEVER_MS });
    // Every shard has polled, found nothing and gone to sleep: only a wake-up can find the entry now.
    await vi.waitFor(() => expect(polls.count()).toBeGreaterThanOrEqual(PENDING_SHARDS), { timeout: 10_000 });
    const pixelId = 'px_drain_wake';
    await ingestEvents(pixelId, { form: 'batch', events: [pageView({ eventId: 'wake-1' })] } as never, NOW);
    const [entryId] = await entryIdsOf(pixelId);
    await vi.waitFor(async () => expect(await projectedAt(pixelId, entryId!)).toBeTypeOf('string'), { timeout: 20_000, interval: 50 });
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
    await expect(Promise.race([closed.then(() => 'closed'), new Promise((resolve) => setTimeout(resolve, 20_000, 'still running'))])).resolves.toBe('closed');
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
    await vi.waitFor(async () => expect(await projectedAt(pixelId, entryId)).toBeTypeOf('string'), { timeout: 20_000, interval: 50 });
  });
});
