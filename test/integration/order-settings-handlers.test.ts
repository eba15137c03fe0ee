import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as getOrderSettings } from '../../functions/accounts/get-order-settings';
import { handler as putOrderSettings } from '../../functions/accounts/put-order-settings';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { apiEvent, invoke } from '../support/api-event';
import { recordedEvents, useFreshTable } from '../support/fresh-table';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { consumePending } from '../../shared/pipeline/consumer';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { validSettings } from '../support/order-settings-fixtures';
import { drainPipeline } from '../support/pipeline';

const PATH = '/accounts/api/account/settings/order';

beforeAll(async () => {
  await useFreshTable();
});

async function clientFor(pixelId: string) {
  const { apiKey, record } = await mintApiKey({ pixelId, scopes: ['account:write'] });
  const headers = { 'x-api-key': apiKey, 'x-pixel-id': pixelId };
  return {
    apiKeyPk: record.apiKeyPk,
    put: (body: unknown, now?: Date) => invoke(putOrderSettings, apiEvent({ method: 'PUT', path: PATH, headers, body, now })),
    get: () => invoke(getOrderSettings, apiEvent({ method: 'GET', path: PATH, headers })),
  };
}

describe('order settings handlers (real SDK, dynalite, local EventBridge)', () => {
  it('stores the settings, answers them with ids, and publishes accountUpdated with the key as actor', async () => {
    const client = await clientFor('px_handlers');
    const requestTime = new Date('2026-03-05T08:00:00.000Z');

    const response = await client.put(validSettings(), requestTime);

    expect(response.status).toBe(200);
    expect((await client.get()).body).toEqual(response.body);
    expect(response.body!.orderSettings.exclusionFilters[0]).toMatchObject({
      createdAt: requestTime.toISOString(),
      updatedAt: requestTime.toISOString(),
    });
    await drainPipeline();
    expect(recordedEvents('px_handlers')).toEqual([
      expect.objectContaining({
        'detail-type': 'accountUpdated',
        detail: {
          eventId: 'px_handlers:orderSettings:1',
          pixelId: 'px_handlers',
          actor: `cli:${client.apiKeyPk}`,
          change: { kind: 'orderSettings' },
          occurredAt: requestTime.toISOString(),
        },
      }),
    ]);
  });

  it('never loses a createdAt or an update when PUTs for one pixel race', async () => {
    // Prepare: one stored filter that every racing PUT keeps, each adding a filter of its own.
    const client = await clientFor('px_race');
    const first = await client.put(validSettings());
    const kept = first.body!.orderSettings.exclusionFilters[0];
    const racers = Array.from({ length: 8 }, (_, i) =>
      validSettings({ countPendingOrders: i % 2 === 0, exclusionFilters: [kept, { ...validSettings().exclusionFilters[0], name: `racer ${i}` }] }),
    );

    // Act
    const responses = await Promise.all(racers.map((body) => client.put(body)));

    // Assess: all succeed, the kept filter keeps its createdAt, and the stored state is exactly one racer's body.
    expect(responses.map((r) => r.status)).toEqual(racers.map(() => 200));
    const stored = (await client.get()).body!.orderSettings;
    expect(stored.exclusionFilters[0]).toMatchObject({ id: kept.id, createdAt: kept.createdAt });
    expect(responses.map((r) => JSON.stringify(r.body!.orderSettings))).toContain(JSON.stringify(stored));
    await drainPipeline();
    // One event per committed write, each version once.
    expect(recordedEvents('px_race').map((event) => event.detail.eventId).sort()).toEqual(
      Array.from({ length: 1 + racers.length }, (_, i) => `px_race:orderSettings:${i + 1}`).sort(),
    );
  });

  it('emits one event per committed write under a stable id, whatever PutEvents does, and none for a rejected PUT', async () => {
    // No emulator produces partial failures, so the fault is injected at the EventBridge client.
    const client = await clientFor('px_publish_fault');
    const eventBridge = mockClient(EventBridgeClient);
    try {
      eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
      const stored = await client.put(validSettings({ countPendingOrders: true }));
      expect(stored.status).toBe(200);
      expect((await client.put({ countPendingOrders: 'yes' })).status).toBe(400);
      await expect(drainPipeline()).rejects.toThrow(/failed to project/);
      expect((await client.get()).body!.orderSettings.countPendingOrders).toBe(true);
      // The drain retries a failing pass a few times before it gives up; each try is one PutEvents.
      const failedTries = eventBridge.commandCalls(PutEventsCommand).length;
      expect(failedTries).toBeGreaterThanOrEqual(1);

      eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
      await drainPipeline();
      await drainPipeline();
      const published = eventBridge.commandCalls(PutEventsCommand).map((call) => JSON.parse(call.args[0].input.Entries![0]!.Detail!));
      // Every try under one id, one success and nothing after it; nothing for the rejected PUT.
      expect(published).toHaveLength(failedTries + 1);
      expect(new Set(published.map((detail) => detail.eventId))).toEqual(new Set(['px_publish_fault:orderSettings:1']));
    } finally {
      eventBridge.restore();
    }
  });

  it('publishes each event once when a write commits between a publish and its clearing', async () => {
    const client = await clientFor('px_between');
    await client.put(validSettings({ countPendingOrders: true }));
    // The consumer holds the image of version 1 (as a stream record would) while version 2 commits.
    const { Item: staleHead } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: 'PIXEL#px_between', SK: 'ORDER_SETTINGS' } }));
    await client.put(validSettings({ countPendingOrders: false }));
    await consumePending([staleHead!]);
    await drainPipeline();
    expect(recordedEvents('px_between').map((event) => event.detail.eventId)).toEqual(['px_between:orderSettings:1', 'px_between:orderSettings:2']);
  });

  it('carries an unpublished event forward when the next write comes first, so both are emitted', async () => {
    const client = await clientFor('px_carry');
    await client.put(validSettings({ countPendingOrders: true }));
    await client.put(validSettings({ countPendingOrders: false }));
    await drainPipeline();
    expect(recordedEvents('px_carry').map((event) => event.detail.eventId)).toEqual(['px_carry:orderSettings:1', 'px_carry:orderSettings:2']);
  });
});
