import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as putOrderSettings } from '../../functions/accounts/put-order-settings';
import { handler as query } from '../../functions/db-mgmt/query';
import { handler as ingestEvents } from '../../functions/tr/ingest-events';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { logger } from '../../shared/config/logger';
import { RETRIES_PER_PASS, drainAll, drainShard, startDrain, type RunningDrain } from '../../shared/pipeline/drain';
import type { Projector } from '../../shared/pipeline/projector';
import { readModelProjectors } from '../../shared/pipeline/read-models';
import { decodeEvents, logPartition } from '../../shared/store/log-repository';
import { listParked } from '../../shared/store/pending-failures';
import { parkedPartition, pendingShardOf } from '../../shared/store/pending-index';
import { queryAll } from '../../shared/store/query-all';
import { apiEvent, invoke } from '../support/api-event';
import { pageView } from '../support/event-fixtures';
import { recordedEvents, useFreshTable } from '../support/fresh-table';
import { validSettings } from '../support/order-settings-fixtures';
import { neighbourOf, pendingInShard, replayParkedCli } from '../support/pipeline';

const DAY = '2026-03-10';
/** The time the next request is accepted at: requests are accepted in the order they are sent, as in life. */
let clock = Date.parse(`${DAY}T12:00:00.000Z`);

let drain: RunningDrain | undefined;
beforeAll(async () => {
  await useFreshTable();
});
afterEach(async () => {
  await drain?.close();
  drain = undefined;
  vi.restoreAllMocks();
});

/**
 * The failure the pipeline met: a pixel whose day rollup grew past DynamoDB's item limit, so
 * every projection of its entries is refused, as DynamoDB refuses such a write.
 */
const poisonedPixels = new Set<string>();
const rollupTooLarge: Projector = {
  name: 'rollup-too-large',
  project: async (batch) => {
    if (poisonedPixels.has(batch.pixelId)) throw Object.assign(new Error('Item size has exceeded the maximum allowed size'), { name: 'ValidationException' });
  },
};
const PROJECTORS = [...readModelProjectors, rollupTooLarge];

async function clientFor(pixelId: string) {
  const { apiKey } = await mintApiKey({ pixelId, scopes: ['events:write', 'analytics:read', 'account:write'] });
  const headers = { 'x-api-key': apiKey, 'x-pixel-id': pixelId };
  return {
    /** POST /tr/api/events with one page view, accepted after every request before it: its status. */
    post: async (eventId: string) =>
      (await invoke(ingestEvents, apiEvent({ method: 'POST', path: '/tr/api/events', headers, now: new Date(clock++), body: { events: [pageView({ eventId, timestamp: `${DAY}T09:00:00Z` })] } })))
        .status,
    putSettings: async () => (await invoke(putOrderSettings, apiEvent({ method: 'PUT', path: '/accounts/api/account/settings/order', headers, body: validSettings() }))).status,
    /** What POST /db-mgmt/api/query answers for the day's event count. */
    eventCount: async () => {
      const answer = await invoke(query, apiEvent({ method: 'POST', path: '/db-mgmt/api/query', headers, body: { pixelId, measures: ['events.count'], dateRange: { start: DAY, end: DAY } } }));
      expect(answer.status).toBe(200);
      // No row at all until an event of the day is projected.
      return (answer.body!.results[0].data.primary[0]?.['events.count'] ?? 0) as number;
    },
  };
}

const logItems = (pixelId: string) => queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': logPartition(pixelId) }, ConsistentRead: true });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a pixel whose entries keep failing', () => {
  it("holds back nothing of its shard's neighbour: the neighbour's new entry and outbox go through in the next pass while the failing entries back off, and again while they are retried and parked with their reason", async () => {
    const poisoned = 'px_park_a_poisoned';
    const neighbour = neighbourOf(poisoned, 'px_park_b_neighbour');
    poisonedPixels.add(poisoned);
    const shard = pendingShardOf(poisoned);
    const retry = { maxAttempts: 2, backoffMs: () => 2_000 };
    const pass = () => drainShard(shard, { projectors: PROJECTORS, retry });
    const errors = vi.spyOn(logger, 'error');
    const poisonedClient = await clientFor(poisoned);
    // More failing entries than a pass reads at a time, ahead of the neighbour's in the shard.
    for (let i = 0; i < 120; i++) expect(await poisonedClient.post(`poisoned-${i}`)).toBe(200);

    // Its first turn: a page of its entries fails together, and backs off.
    expect(await pass()).toEqual({ done: 0, retrying: 100, parked: 0, failed: 0 });

    const neighbourClient = await clientFor(neighbour);
    expect(await neighbourClient.post('neighbour-1')).toBe(200);
    expect(await neighbourClient.putSettings()).toBe(200);
    expect(await pass()).toEqual({ done: 2, retrying: 0, parked: 0, failed: 0 });
    expect(await neighbourClient.eventCount()).toBe(1);
    expect(recordedEvents(neighbour).map((event) => event['detail-type'])).toEqual(['accountUpdated']);

    // Once their backoff ends the failing entries are retried, each alone, a few a pass, and
    // parked at their second failure; a new entry of the neighbour meanwhile is projected in the
    // pass after it arrives, every time.
    await sleep(retry.backoffMs());
    let sent = 1;
    for (let round = 0; round < 30 && (await pendingInShard(shard)).length > 0; round++) {
      expect(await neighbourClient.post(`neighbour-${++sent}`)).toBe(200);
      const { done, retrying, parked, failed } = await pass();
      expect({ done, failed }).toEqual({ done: 1, failed: 0 });
      expect(retrying + parked).toBeLessThanOrEqual(RETRIES_PER_PASS + 20);
      expect(await neighbourClient.eventCount()).toBe(sent);
      if (retrying + parked === 0) await sleep(retry.backoffMs());
    }
    expect(await pendingInShard(shard)).toEqual([]);

    const parked = await listParked(poisoned);
    expect(parked).toHaveLength(120);
    for (const item of parked) {
      expect(item).toMatchObject({ pixelId: poisoned, kind: 'entry', attempts: 2, errorName: 'ValidationException', errorMessage: 'Item size has exceeded the maximum allowed size' });
      expect(item.firstFailedAt < item.lastFailedAt && item.lastFailedAt <= item.parkedAt).toBe(true);
    }
    expect(await listParked(neighbour)).toEqual([]);
    // The entry is kept whole, in the parked index, with no time to live.
    for (const item of await logItems(poisoned)) {
      expect(item).toMatchObject({ GSI2PK: parkedPartition(shard), GSI2SK: `${poisoned}#${item.entryId}` });
      expect(item.ttl).toBeUndefined();
      expect(decodeEvents(item.data as Uint8Array).map((event) => event.name)).toEqual(['page_view']);
    }
    // One error line for each, naming the pixel, the entry and the reason.
    const lines = errors.mock.calls.filter(([message]) => String(message).startsWith('Parked'));
    expect(lines.map(([, fields]) => (fields as { id: string }).id).sort()).toEqual(parked.map((item) => item.id).sort());
    expect(lines[0]![1]).toMatchObject({ pixelId: poisoned, reason: 'ValidationException: Item size has exceeded the maximum allowed size' });
  }, 120_000);

  it('keeps the neighbour within a pass or two of the running drain while the failing pixel backs off and is parked', async () => {
    const poisoned = 'px_park_c_poisoned';
    const neighbour = neighbourOf(poisoned, 'px_park_d_neighbour');
    poisonedPixels.add(poisoned);
    const poisonedClient = await clientFor(poisoned);
    for (let i = 0; i < 120; i++) expect(await poisonedClient.post(`poisoned-${i}`)).toBe(200);
    drain = startDrain({ projectors: PROJECTORS, retry: { maxAttempts: 3, backoffMs: () => 300 } });
    const neighbourClient = await clientFor(neighbour);

    // Sent while the poisoned entries fail, back off, are retried and then parked: each is
    // readable within a pass or two (a pass of 100 entries takes about 1.5 s), as when none fails.
    let sent = 0;
    while ((await listParked(poisoned)).length < 120) {
      expect(await neighbourClient.post(`neighbour-${++sent}`)).toBe(200);
      const count = sent;
      await vi.waitFor(async () => expect(await neighbourClient.eventCount()).toBe(count), { timeout: 5_000, interval: 100 });
      expect(sent).toBeLessThan(60);
    }
    expect(sent).toBeGreaterThan(1);
  }, 120_000);
});

describe('a settings outbox that keeps failing to publish', () => {
  it('is parked with its reason, and the next settings write puts it back, so both writes are announced', async () => {
    const pixelId = 'px_park_outbox';
    const client = await clientFor(pixelId);
    const eventBridge = mockClient(EventBridgeClient);
    try {
      eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'EventBridge is down' }] });
      expect(await client.putSettings()).toBe(200);
      for (let pass = 0; pass < 3; pass++) await drainShard(pendingShardOf(pixelId), { retry: { maxAttempts: 2, backoffMs: () => 0 } });
      expect(await listParked(pixelId)).toEqual([expect.objectContaining({ kind: 'outbox', id: 'ORDER_SETTINGS', attempts: 2 })]);
    } finally {
      eventBridge.restore();
    }
    expect(recordedEvents(pixelId)).toEqual([]);

    expect(await client.putSettings()).toBe(200);
    expect(await listParked(pixelId)).toEqual([]);
    await drainAll();
    expect(recordedEvents(pixelId).map((event) => event.detail.eventId)).toEqual([`${pixelId}:orderSettings:1`, `${pixelId}:orderSettings:2`]);
  });
});

describe('npm run replay-parked', () => {
  it('lists what is parked and why, and once the cause is fixed puts it back for the consumer, which projects it exactly once', async () => {
    const pixelId = 'px_park_replay';
    poisonedPixels.add(pixelId);
    const client = await clientFor(pixelId);
    for (const eventId of ['replay-1', 'replay-2', 'replay-3']) expect(await client.post(eventId)).toBe(200);
    const retry = { maxAttempts: 2, backoffMs: () => 0 };
    const park = async () => {
      for (let pass = 0; pass < 4; pass++) await drainShard(pendingShardOf(pixelId), { projectors: PROJECTORS, retry });
    };
    await park();
    expect(await listParked(pixelId)).toHaveLength(3);

    const listed = await replayParkedCli('list', '--pixel', pixelId);
    expect(listed.code).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(4);
    expect(listed.stdout).toContain('2 attempts');
    expect(listed.stdout).toContain('ValidationException: Item size has exceeded the maximum allowed size');
    expect(listed.stdout.trim().split('\n').at(-1)).toMatch(/^3 parked item\(s\) of 1 pixel\(s\) \(pixel px_park_replay\)/);
    const asJson = JSON.parse((await replayParkedCli('list', '--pixel', pixelId, '--json')).stdout);
    expect(asJson).toHaveLength(3);
    expect((await replayParkedCli('--dry-run', '--pixel', pixelId)).stdout).toMatch(/^Would replay 3 parked item/m);
    expect(await listParked(pixelId)).toHaveLength(3);

    // Replayed while the cause is still there: the entries fail again, from a fresh count, and are parked again.
    expect((await replayParkedCli('--pixel', pixelId)).stdout).toMatch(/^Replayed 3 of 3 parked item/);
    expect(await listParked(pixelId)).toEqual([]);
    await park();
    expect((await listParked(pixelId)).map((item) => item.attempts)).toEqual([2, 2, 2]);

    // The cause fixed, a replay hands them to the normal consumer.
    poisonedPixels.delete(pixelId);
    const replayed = await replayParkedCli('--pixel', pixelId);
    expect(replayed).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Replayed 3 of 3 parked item\(s\) of 1 pixel\(s\) \(pixel px_park_replay\) in the table /) });
    await drainAll();
    expect(await listParked(pixelId)).toEqual([]);
    expect(await client.eventCount()).toBe(3);
    for (const item of await logItems(pixelId)) {
      expect(item.projectedAt).toBeTypeOf('string');
      expect(item).not.toHaveProperty('GSI2PK');
      expect(item).not.toHaveProperty('attempts');
    }
    // Nothing is left to replay, and a second replay changes nothing.
    expect((await replayParkedCli('--pixel', pixelId)).stdout).toMatch(/^Replayed 0 of 0 parked item/);
    await drainAll();
    expect(await client.eventCount()).toBe(3);
  }, 120_000);

  it('refuses an unknown command and a malformed pixel id (exit code 2)', async () => {
    expect((await replayParkedCli('purge')).code).toBe(2);
    expect((await replayParkedCli('list', '--pixel', 'not a pixel')).code).toBe(2);
  }, 60_000);
});
