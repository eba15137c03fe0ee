import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as putOrderSettings } from '../../functions/accounts/put-order-settings';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { DRAIN_BATCH, drainShard } from '../../shared/pipeline/drain';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { appendLogEntry, logPartition, type LogEntry } from '../../shared/store/log-repository';
import { pendingShardOf } from '../../shared/store/pending-index';
import { queryAll } from '../../shared/store/query-all';
import { newEventId } from '../../shared/tracking/event-id';
import { toStoredEvent } from '../../shared/tracking/stored-event';
import { apiEvent, invoke } from '../support/api-event';
import { pageView } from '../support/event-fixtures';
import { recordedEvents, useFreshTable } from '../support/fresh-table';
import { validSettings } from '../support/order-settings-fixtures';
import { neighbourOf, pendingInShard } from '../support/pipeline';

const NOW = new Date('2026-03-10T12:00:00.000Z');

beforeAll(async () => {
  await useFreshTable();
});

/** A log entry of one page view, accepted at `at`. */
function entryOf(pixelId: string, eventId: string, at: Date = NOW): LogEntry {
  const event = toStoredEvent(pageView({ eventId, timestamp: '2026-03-10T09:00:00Z' }) as never, { eventId, eventIdSource: 'client', receivedAt: at });
  return { pixelId, entryId: newEventId(at), acceptedAt: at.toISOString(), events: [event] };
}

const logItem = async (pixelId: string, entryId: string) =>
  (await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: logPartition(pixelId), SK: entryId }, ConsistentRead: true }))).Item!;
const isProjected = async (pixelId: string, entryId: string) => typeof (await logItem(pixelId, entryId)).projectedAt === 'string';
/** The entryIds of a pixel's projected log entries. */
const projectedOf = async (pixelId: string) =>
  (await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': logPartition(pixelId) }, ConsistentRead: true }))
    .filter((item) => typeof item.projectedAt === 'string')
    .map((item) => item.entryId as string);

async function putSettings(pixelId: string): Promise<number> {
  const { apiKey } = await mintApiKey({ pixelId, scopes: ['account:write'] });
  const event = apiEvent({ method: 'PUT', path: '/accounts/api/account/settings/order', headers: { 'x-api-key': apiKey, 'x-pixel-id': pixelId }, body: validSettings() });
  return (await invoke(putOrderSettings, event)).status;
}

describe('fairness within a drain shard', () => {
  it("projects a pixel's one new entry in the first pass, and the backlogged pixel's own outbox too, though that pixel sorts first with 300 entries pending", async () => {
    const backlogged = 'px_fair_a_backlog';
    const fresh = neighbourOf(backlogged, 'px_fair_b_fresh');
    const shard = pendingShardOf(backlogged);
    const backlog: LogEntry[] = [];
    for (let i = 0; i < 300; i++) {
      backlog.push(entryOf(backlogged, `backlog-${i}`, new Date(NOW.getTime() - 60_000 + i)));
      await appendLogEntry(backlog.at(-1)!);
    }
    const newEntry = entryOf(fresh, 'fresh-1');
    await appendLogEntry(newEntry);
    // The backlogged pixel's settings change after its backlog: its accountUpdated waits in an outbox.
    expect(await putSettings(backlogged)).toBe(200);

    await drainShard(shard, { projectors: [] });

    expect(await isProjected(fresh, newEntry.entryId)).toBe(true);
    expect(recordedEvents(backlogged).map((event) => event['detail-type'])).toEqual(['accountUpdated']);
    // The backlogged pixel had its turn, a page of its oldest entries, and no more.
    const projected = await projectedOf(backlogged);
    expect(projected.length).toBeGreaterThan(0);
    expect(projected.length).toBeLessThanOrEqual(DRAIN_BATCH);
    expect(projected).toContain(backlog[0]!.entryId);

    // Pass after pass, the rest of the backlog drains.
    for (let pass = 0; pass < 5 && (await pendingInShard(shard)).length > 0; pass++) await drainShard(shard, { projectors: [] });
    expect(await pendingInShard(shard)).toEqual([]);
  });

  it('drains items pending since the sort key was a bare ULID, beside current ones, each pass taking every one of them', async () => {
    const first = 'px_fair_legacy_a';
    const second = neighbourOf(first, 'px_fair_legacy_b');
    const current = neighbourOf(first, 'px_fair_legacy_c');
    const shard = pendingShardOf(first);
    const legacy = [entryOf(first, 'l1'), entryOf(second, 'l2'), entryOf(first, 'l3'), entryOf(second, 'l4'), entryOf(first, 'l5')];
    const currentEntries = [entryOf(current, 'c1'), entryOf(current, 'c2'), entryOf(current, 'c3')];
    for (const entry of [...legacy, ...currentEntries]) await appendLogEntry(entry);
    // As an item appended before the sort key carried the pixel holds it: a bare ULID.
    for (const entry of legacy) {
      await documentClient.send(
        new UpdateCommand({ TableName: tableName(), Key: { PK: logPartition(entry.pixelId), SK: entry.entryId }, UpdateExpression: 'SET GSI2SK = :ulid', ExpressionAttributeValues: { ':ulid': entry.entryId } }),
      );
    }
    expect(await putSettings(second)).toBe(200);
    const { Item: head } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: `PIXEL#${second}`, SK: 'ORDER_SETTINGS' }, ConsistentRead: true }));
    await documentClient.send(
      new UpdateCommand({ TableName: tableName(), Key: { PK: head!.PK, SK: head!.SK }, UpdateExpression: 'SET GSI2SK = :ulid', ExpressionAttributeValues: { ':ulid': String(head!.GSI2SK).split('!')[1] } }),
    );

    // Pages of two items: the old layout's items in pages of their own and mixed with a current run.
    await drainShard(shard, { projectors: [], limit: 2 });

    expect([...(await projectedOf(first)), ...(await projectedOf(second))].sort()).toEqual(legacy.map((entry) => entry.entryId).sort());
    expect(recordedEvents(second).map((event) => event['detail-type'])).toEqual(['accountUpdated']);
    expect(await projectedOf(current)).toHaveLength(2);
    await drainShard(shard, { projectors: [], limit: 2 });
    expect(await pendingInShard(shard)).toEqual([]);
  });
});
