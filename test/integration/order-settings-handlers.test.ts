import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as getOrderSettings } from '../../functions/accounts/get-order-settings';
import { handler as putOrderSettings } from '../../functions/accounts/put-order-settings';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { apiEvent, invoke } from '../support/api-event';
import { recordedEvents, useFreshTable } from '../support/fresh-table';
import { validSettings } from '../support/order-settings-fixtures';

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
    expect(recordedEvents('px_handlers')).toEqual([
      expect.objectContaining({
        'detail-type': 'accountUpdated',
        detail: { pixelId: 'px_handlers', actor: `cli:${client.apiKeyPk}`, change: { kind: 'orderSettings' }, occurredAt: requestTime.toISOString() },
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
    expect(recordedEvents('px_race')).toHaveLength(1 + racers.length);
  });

  it('answers 503 when EventBridge fails the entry, keeps the settings, and a retry publishes', async () => {
    // No emulator produces partial failures, so the fault is injected at the EventBridge client.
    const client = await clientFor('px_publish_fault');
    const eventBridge = mockClient(EventBridgeClient);
    try {
      eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 1, Entries: [{ ErrorCode: 'InternalFailure' }] });
      const failed = await client.put(validSettings({ countPendingOrders: true }));
      expect(failed.status).toBe(503);
      expect(failed.headers['retry-after']).toBe('1');
      expect((await client.get()).body!.orderSettings.countPendingOrders).toBe(true);

      eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: '1' }] });
      expect((await client.put(validSettings({ countPendingOrders: true }))).status).toBe(200);
      expect(eventBridge.commandCalls(PutEventsCommand)).toHaveLength(2);
    } finally {
      eventBridge.restore();
    }
  });
});
