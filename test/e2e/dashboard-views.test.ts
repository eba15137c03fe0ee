import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, mintKey, startLocalServer, type RunningServer } from '../support/local-server';
import { validCreateBody } from '../support/dashboard-view-fixtures';

const BASE = '/accounts/api/dashboard/views';
const PIXEL = 'px_e2e_views';
let server: RunningServer;
let writer: Record<string, string>;
let reader: Record<string, string>;
let stranger: Record<string, string>;

const headersOf = (key: { apiKey: string; pixelId: string }) => ({ 'x-api-key': key.apiKey, 'x-pixel-id': key.pixelId });
const names = (body: { dashboardViews: Array<{ name: string }> }) => body.dashboardViews.map((view) => view.name);

beforeAll(async () => {
  server = await startLocalServer();
  const [w, r, s] = await Promise.all([
    mintKey(server, PIXEL, 'dashboards:write'),
    mintKey(server, PIXEL, 'dashboards:read'),
    mintKey(server, 'px_e2e_other', 'dashboards:write'),
  ]);
  [writer, reader, stranger] = [headersOf(w), headersOf(r), headersOf(s)];
});
afterAll(async () => {
  await server?.stop();
});

describe('dashboard views through the local server', () => {
  it('goes through the whole life of a view: build, create, list, read, update, copy, delete', async () => {
    // Build from a preset: `from-preset` is its own route, not a view id.
    const built = await call(server, 'POST', `${BASE}/from-preset`, {
      headers: writer,
      body: { name: 'KPIs', widgets: [{ measure: 'channel.spend', title: 'Spend' }, { measure: 'channel.roas' }] },
    });
    expect(built.status).toBe(200);
    const kpis = built.body.dashboardView;
    expect(kpis.configuration.widgets.map((w: { title: string; layout: { x: number; y: number } }) => [w.title, w.layout.x, w.layout.y])).toEqual([
      ['Spend', 0, 0],
      ['ROAS', 3, 0],
    ]);

    // Create from a complete configuration; it goes after the first view.
    const created = await call(server, 'POST', BASE, { headers: writer, body: validCreateBody({ type: 'attribution_view' }) });
    expect(created.status).toBe(200);
    const overview = created.body.dashboardView;
    expect(overview).toMatchObject({ name: 'Marketing overview', type: 'attribution_view', order: kpis.order + 1, createdBy: '', updatedBy: '' });

    // A read-only key lists and reads.
    expect(names((await call(server, 'GET', BASE, { headers: reader })).body)).toEqual(['KPIs', 'Marketing overview']);
    expect(names((await call(server, 'GET', `${BASE}?type=attribution_view`, { headers: reader })).body)).toEqual(['Marketing overview']);
    expect((await call(server, 'GET', `${BASE}/${overview.dashboardViewId}`, { headers: reader })).body).toEqual(created.body);
    expect((await call(server, 'PATCH', `${BASE}/${overview.dashboardViewId}`, { headers: reader, body: { name: 'x' } })).status).toBe(403);

    // Update: rename and move it first.
    const patched = await call(server, 'PATCH', `${BASE}/${overview.dashboardViewId}`, { headers: writer, body: { name: 'Overview', order: -1 } });
    expect(patched.status).toBe(200);
    expect(patched.body.dashboardView).toMatchObject({ name: 'Overview', order: -1, configuration: overview.configuration, createdAt: overview.createdAt });
    expect(names((await call(server, 'GET', BASE, { headers: reader })).body)).toEqual(['Overview', 'KPIs']);

    // Copy, with no body at all, as `curl -X POST` sends it; it goes after the last view (KPIs, order 0).
    const copied = await call(server, 'POST', `${BASE}/${kpis.dashboardViewId}/copy`, { headers: writer });
    expect(copied.status).toBe(200);
    expect(copied.body.dashboardView).toMatchObject({ name: 'KPIs (copy)', configuration: kpis.configuration, order: kpis.order + 1 });
    expect(copied.body.dashboardView.dashboardViewId).not.toBe(kpis.dashboardViewId);

    // Another pixel sees none of it.
    expect((await call(server, 'GET', BASE, { headers: stranger })).body).toEqual({ dashboardViews: [] });
    for (const [method, path] of [
      ['GET', `${BASE}/${kpis.dashboardViewId}`],
      ['PATCH', `${BASE}/${kpis.dashboardViewId}`],
      ['POST', `${BASE}/${kpis.dashboardViewId}/copy`],
      ['DELETE', `${BASE}/${kpis.dashboardViewId}`],
    ] as const) {
      const response = await call(server, method, path, { headers: stranger, body: method === 'PATCH' ? { name: 'x' } : undefined });
      expect(response).toMatchObject({ status: 404, body: { message: 'Dashboard view not found' } });
    }

    // Delete, then it is gone everywhere; a second delete is 404.
    const deleted = await call(server, 'DELETE', `${BASE}/${kpis.dashboardViewId}`, { headers: writer });
    expect(deleted).toMatchObject({ status: 200, body: { deleted: true, dashboardViewId: kpis.dashboardViewId } });
    expect((await call(server, 'DELETE', `${BASE}/${kpis.dashboardViewId}`, { headers: writer })).status).toBe(404);
    expect((await call(server, 'GET', `${BASE}/${kpis.dashboardViewId}`, { headers: writer })).status).toBe(404);
    expect(names((await call(server, 'GET', BASE, { headers: writer })).body)).toEqual(['Overview', 'KPIs (copy)']);
  });

  it('answers 404 to a malformed id, 400 to an invalid body, and 405 to a method the path lacks', async () => {
    expect(await call(server, 'GET', `${BASE}/not-a-uuid`, { headers: writer })).toMatchObject({ status: 404, body: { message: 'Dashboard view not found' } });
    expect(await call(server, 'DELETE', `${BASE}/%E2%9C%93`, { headers: writer })).toMatchObject({ status: 404 });

    const widget = { title: 't', layout: { x: 8, y: 0, columns: 6, rows: 2 }, dataConfig: { measures: ['orders.revenue'] } };
    const invalid = await call(server, 'POST', BASE, { headers: writer, body: { name: 'x', configuration: { widgets: [widget] } } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((issue: { path: string[] }) => issue.path.join('.')).sort()).toEqual([
      'configuration.widgets.0.dataConfig.measures.0',
      'configuration.widgets.0.layout.columns',
    ]);

    const wrongMethod = await call(server, 'PUT', BASE, { headers: writer, body: {} });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'POST']);
  });

  it('replays a create retried over HTTP with its Idempotency-Key, and creates one view', async () => {
    const key = `e2e-${Date.now()}`;
    const body = validCreateBody({ name: 'Created once' });
    const headers = { ...writer, 'Idempotency-Key': key };

    const first = await call(server, 'POST', BASE, { headers, body });
    const retry = await call(server, 'POST', BASE, { headers, body });
    const reused = await call(server, 'POST', BASE, { headers, body: validCreateBody({ name: 'Another' }) });

    expect([first.status, retry.status, reused.status]).toEqual([200, 200, 422]);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('x-request-id')).toBeTruthy();
    expect(names((await call(server, 'GET', BASE, { headers: reader })).body).filter((name) => name === 'Created once')).toHaveLength(1);
  });
});
