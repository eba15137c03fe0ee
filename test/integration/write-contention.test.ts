import { beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as getOrderSettings } from '../../functions/accounts/get-order-settings';
import { handler as putOrderSettings } from '../../functions/accounts/put-order-settings';
import { handler as createDashboardView } from '../../functions/accounts/create-dashboard-view';
import { handler as updateDashboardView } from '../../functions/accounts/update-dashboard-view';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { apiEvent, invoke } from '../support/api-event';
import { validCreateBody } from '../support/dashboard-view-fixtures';
import { useFreshTable } from '../support/fresh-table';
import { validSettings } from '../support/order-settings-fixtures';

const PATH = '/accounts/api/account/settings/order';
const WRITERS = 50;

beforeAll(async () => {
  await useFreshTable();
});

async function headersFor(pixelId: string, scopes: string[]) {
  const { apiKey } = await mintApiKey({ pixelId, scopes: scopes as never });
  return { 'x-api-key': apiKey, 'x-pixel-id': pixelId };
}

describe('contention alone never fails a write (real handlers, dynalite)', () => {
  it(`answers 200 to ${WRITERS} concurrent PUTs of order settings on one pixel, and stores one of them whole`, async () => {
    // Prepare: a stored filter that every writer sends back (so its id and createdAt must survive),
    // and a filter of each writer's own.
    const headers = await headersFor('px_contention', ['account:write']);
    const put = (body: unknown) => invoke(putOrderSettings, apiEvent({ method: 'PUT', path: PATH, headers, body }));
    const first = await put(validSettings({ exclusionFilters: [{ ...validSettings().exclusionFilters[0], name: 'kept' }] }));
    const kept = first.body!.orderSettings.exclusionFilters[0];
    const bodies = Array.from({ length: WRITERS }, (_, i) =>
      validSettings({ countPendingOrders: i % 2 === 0, exclusionFilters: [kept, { ...validSettings().exclusionFilters[0], name: `writer ${i}` }] }),
    );

    // Act
    const responses = await Promise.all(bodies.map(put));

    // Assess: every PUT committed; the stored document is exactly one writer's answer, whose own
    // filter is the one it sent, and the kept filter kept its identity and createdAt.
    expect(responses.map((response) => response.status)).toEqual(bodies.map(() => 200));
    const stored = (await invoke(getOrderSettings, apiEvent({ method: 'GET', path: PATH, headers }))).body!.orderSettings;
    const winner = responses.findIndex((response) => JSON.stringify(response.body!.orderSettings) === JSON.stringify(stored));
    expect(winner).toBeGreaterThanOrEqual(0);
    expect(stored.exclusionFilters).toHaveLength(2);
    expect(stored.exclusionFilters[0]).toMatchObject({ id: kept.id, name: 'kept', createdAt: kept.createdAt });
    expect(stored.exclusionFilters[1].name).toBe(`writer ${winner}`);
    expect(stored.countPendingOrders).toBe(winner % 2 === 0);
  });

  it(`answers 200 to ${WRITERS} concurrent PATCHes of one dashboard view, and every change lands`, async () => {
    const headers = await headersFor('px_contention_views', ['dashboards:write']);
    const created = await invoke(
      createDashboardView,
      apiEvent({ method: 'POST', path: '/accounts/api/dashboard/views', headers, body: validCreateBody({ order: 0 }) }),
    );
    const id = created.body!.dashboardView.dashboardViewId as string;
    const patch = (body: unknown) =>
      invoke(
        updateDashboardView,
        apiEvent({
          method: 'PATCH',
          path: `/accounts/api/dashboard/views/${id}`,
          routePath: '/accounts/api/dashboard/views/{dashboardViewId}',
          pathParameters: { dashboardViewId: id },
          headers,
          body,
        }),
      );

    const responses = await Promise.all(Array.from({ length: WRITERS }, (_, i) => patch({ order: i + 1 })));

    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    const orders = responses.map((response) => response.body!.dashboardView.order as number);
    expect(new Set(orders)).toEqual(new Set(Array.from({ length: WRITERS }, (_, i) => i + 1)));
  });
});

describe('contention across containers (separate module instances: their own store clients and queues)', () => {
  it(`answers 200 to ${WRITERS} PUTs on one pixel spread over 5 containers racing on the version check`, async () => {
    const headers = await headersFor('px_contention_containers', ['account:write']);
    const containers: Array<typeof putOrderSettings> = [];
    for (let i = 0; i < 5; i++) {
      vi.resetModules();
      containers.push((await import('../../functions/accounts/put-order-settings')).handler);
    }
    const bodies = Array.from({ length: WRITERS }, (_, i) => validSettings({ exclusionFilters: [{ ...validSettings().exclusionFilters[0], name: `writer ${i}` }] }));

    const responses = await Promise.all(
      bodies.map((body, i) => invoke(containers[i % containers.length]!, apiEvent({ method: 'PUT', path: PATH, headers, body }))),
    );

    expect(responses.map((response) => response.status)).toEqual(bodies.map(() => 200));
    const stored = (await invoke(getOrderSettings, apiEvent({ method: 'GET', path: PATH, headers }))).body!.orderSettings;
    expect(responses.map((response) => JSON.stringify(response.body!.orderSettings))).toContain(JSON.stringify(stored));
  });
});
