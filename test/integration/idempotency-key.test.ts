import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as createDashboardView } from '../../functions/accounts/create-dashboard-view';
import { handler as deleteDashboardView } from '../../functions/accounts/delete-dashboard-view';
import { handler as listDashboardViews } from '../../functions/accounts/list-dashboard-views';
import { handler as getOrderSettings } from '../../functions/accounts/get-order-settings';
import { handler as putOrderSettings } from '../../functions/accounts/put-order-settings';
import { handler as ingestEvents } from '../../functions/tr/ingest-events';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { fingerprintOf, requestContent } from '../../shared/http/idempotency';
import { claimIdempotencyKey } from '../../shared/store/idempotency-repository';
import { apiEvent, invoke } from '../support/api-event';
import { validCreateBody } from '../support/dashboard-view-fixtures';
import { wholeTableText } from '../support/event-store';
import { pageView } from '../support/event-fixtures';
import { useFreshTable } from '../support/fresh-table';
import { validSettings } from '../support/order-settings-fixtures';

const VIEWS = '/accounts/api/dashboard/views';
const SETTINGS = '/accounts/api/account/settings/order';
const T0 = new Date('2026-03-10T12:00:00.000Z');
const HOUR = 3_600_000;

beforeAll(async () => {
  await useFreshTable();
});

async function clientFor(pixelId: string) {
  const { apiKey } = await mintApiKey({ pixelId, scopes: ['dashboards:write', 'account:write', 'events:write'] });
  const auth = { 'x-api-key': apiKey, 'x-pixel-id': pixelId };
  const withKey = (key: string | undefined) => (key === undefined ? auth : { ...auth, 'idempotency-key': key });
  return {
    auth,
    createView: (body: unknown, key?: string, now = T0) =>
      invoke(createDashboardView, apiEvent({ method: 'POST', path: VIEWS, headers: withKey(key), body, now })),
    deleteView: (id: string, key?: string) =>
      invoke(
        deleteDashboardView,
        apiEvent({ method: 'DELETE', path: `${VIEWS}/${id}`, routePath: `${VIEWS}/{dashboardViewId}`, pathParameters: { dashboardViewId: id }, headers: withKey(key) }),
      ),
    views: async () => (await invoke(listDashboardViews, apiEvent({ method: 'GET', path: VIEWS, headers: auth }))).body!.dashboardViews as Array<{ dashboardViewId: string }>,
    putSettings: (body: unknown, key?: string) => invoke(putOrderSettings, apiEvent({ method: 'PUT', path: SETTINGS, headers: withKey(key), body })),
    settings: async () => (await invoke(getOrderSettings, apiEvent({ method: 'GET', path: SETTINGS, headers: auth }))).body!.orderSettings,
    postEvents: (body: unknown, key?: string) => invoke(ingestEvents, apiEvent({ method: 'POST', path: '/tr/api/events', headers: withKey(key), body, now: T0 })),
  };
}

const occurrences = (text: string, marker: string) => text.split(marker).length - 1;

describe('Idempotency-Key on write routes (real handlers, dynalite)', () => {
  it('replays the first response to a retry of a create with the same key and body, and creates nothing more', async () => {
    const client = await clientFor('px_idem_create');
    const key = randomUUID();

    const first = await client.createView(validCreateBody({ name: 'Once' }), key);
    // The same JSON value with its keys in another order is the same request.
    const { configuration, name } = validCreateBody({ name: 'Once' });
    const retry = await client.createView({ configuration, name }, key);

    expect(first.status).toBe(200);
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await client.views()).toEqual([expect.objectContaining({ dashboardViewId: first.body!.dashboardView.dashboardViewId })]);
  });

  it('answers 422 with the standard error body to the same key with another body, and changes nothing', async () => {
    const client = await clientFor('px_idem_reused');
    const key = randomUUID();
    await client.createView(validCreateBody({ name: 'First' }), key);

    const reused = await client.createView(validCreateBody({ name: 'Second' }), key);

    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ message: expect.stringContaining('Idempotency-Key') });
    expect(await client.views()).toHaveLength(1);
  });

  it('keeps keys of different pixels apart', async () => {
    const [a, b] = await Promise.all([clientFor('px_idem_a'), clientFor('px_idem_b')]);
    const key = 'shared-key-1';

    const fromA = await a.createView(validCreateBody({ name: 'A' }), key);
    const fromB = await b.createView(validCreateBody({ name: 'B' }), key);

    expect([fromA.status, fromB.status]).toEqual([200, 200]);
    expect(fromB.headers['idempotent-replayed']).toBeUndefined();
    expect(fromB.body!.dashboardView.name).toBe('B');
    expect(await a.views()).toHaveLength(1);
    expect(await b.views()).toHaveLength(1);
  });

  it('forgets a key once its 24-hour retention window has passed', async () => {
    const client = await clientFor('px_idem_expired');
    const key = randomUUID();
    const first = await client.createView(validCreateBody(), key, T0);

    const within = await client.createView(validCreateBody(), key, new Date(T0.getTime() + 23 * HOUR));
    const after = await client.createView(validCreateBody(), key, new Date(T0.getTime() + 25 * HOUR));

    expect(within.body).toEqual(first.body);
    expect(after.status).toBe(200);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(after.body!.dashboardView.dashboardViewId).not.toBe(first.body!.dashboardView.dashboardViewId);
    expect(await client.views()).toHaveLength(2);
  });

  it('replays a PUT of order settings without storing it again over a later change', async () => {
    const client = await clientFor('px_idem_settings');
    const key = randomUUID();
    const first = await client.putSettings(validSettings({ countPendingOrders: true }), key);
    const later = await client.putSettings(validSettings({ countPendingOrders: false }));

    const retry = await client.putSettings(validSettings({ countPendingOrders: true }), key);

    expect(retry.body).toEqual(first.body);
    expect(await client.settings()).toEqual(later.body!.orderSettings);
  });

  it('replays a DELETE as the success it was, not a 404', async () => {
    const client = await clientFor('px_idem_delete');
    const id = (await client.createView(validCreateBody())).body!.dashboardView.dashboardViewId as string;
    const key = randomUUID();

    const first = await client.deleteView(id, key);
    const retry = await client.deleteView(id, key);
    const unkeyed = await client.deleteView(id);

    expect([first.status, retry.status, unkeyed.status]).toEqual([200, 200, 404]);
    expect(retry.body).toEqual({ deleted: true, dashboardViewId: id });
  });

  it('stores a batch of events once, however often it is retried with its key', async () => {
    const client = await clientFor('px_idem_events');
    const marker = `marker-${randomUUID()}`;
    // No eventIds: without the key every delivery would be stored again.
    const batch = { events: [pageView({ timestamp: '2026-03-10T11:00:00Z', data: { marker } }), pageView({ timestamp: '2026-03-10T11:01:00Z', data: { marker } })] };
    const key = randomUUID();

    const first = await client.postEvents(batch, key);
    const storedOnce = occurrences(await wholeTableText(), marker);
    const retry = await client.postEvents(batch, key);

    expect(first).toMatchObject({ status: 200, body: { success: true, eventsIngested: 2 } });
    expect(retry.body).toEqual(first.body);
    expect(storedOnce).toBeGreaterThan(0);
    expect(occurrences(await wholeTableText(), marker)).toBe(storedOnce);
  });

  it('answers the events envelope for 422 on the events route', async () => {
    const client = await clientFor('px_idem_events_422');
    const key = randomUUID();
    await client.postEvents(pageView({ timestamp: '2026-03-10T11:00:00Z' }), key);

    const reused = await client.postEvents(pageView({ timestamp: '2026-03-10T11:05:00Z' }), key);

    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({ error: { code: 'idempotency_key_reused', details: [] }, message: expect.any(String), requestId: expect.any(String) });
  });

  it('answers 409 with Retry-After while a request with the same key is still running', async () => {
    const client = await clientFor('px_idem_in_flight');
    const key = randomUUID();
    const body = validCreateBody({ name: 'In flight' });
    // A request that claimed the key and has not finished: as if it were running on another container.
    const event = apiEvent({ method: 'POST', path: VIEWS, headers: { ...client.auth, 'idempotency-key': key }, body });
    await claimIdempotencyKey(
      { pixelId: 'px_idem_in_flight', route: `POST ${VIEWS}`, key },
      { fingerprint: fingerprintOf(requestContent(event, body)), now: T0, retentionSeconds: 86_400, leaseMs: 60_000 },
    );

    const duplicate = await client.createView(body, key);

    expect(duplicate.status).toBe(409);
    expect(duplicate.headers['retry-after']).toBe('1');
    expect(duplicate.body).toEqual({ message: expect.stringContaining('in progress') });
    expect(await client.views()).toHaveLength(0);
  });

  it('never records a 400 or a 401: the corrected request with the same key runs', async () => {
    const client = await clientFor('px_idem_errors');
    const key = randomUUID();

    const unauthorised = await invoke(
      createDashboardView,
      apiEvent({ method: 'POST', path: VIEWS, headers: { ...client.auth, 'x-api-key': `upstack_${'x'.repeat(43)}`, 'idempotency-key': key }, body: validCreateBody() }),
    );
    const invalid = await client.createView({ name: '' }, key);
    const valid = await client.createView(validCreateBody(), key);

    expect([unauthorised.status, invalid.status, valid.status]).toEqual([401, 400, 200]);
    expect(valid.headers['idempotent-replayed']).toBeUndefined();
  });

  it.each(['', 'has space', 'x'.repeat(129), 'ключ', 'a,b'])('rejects the key %j with 400 and changes nothing', async (key) => {
    const client = await clientFor(`px_idem_bad_${randomUUID().slice(0, 8)}`);

    const response = await client.createView(validCreateBody(), key);

    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      message: expect.stringContaining('Idempotency-Key'),
      errors: [{ message: expect.any(String), key: 'idempotency-key', path: ['headers', 'idempotency-key'] }],
    });
    expect(await client.views()).toHaveLength(0);
  });
});
