import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as copyView } from '../../functions/accounts/copy-dashboard-view';
import { handler as fromPreset } from '../../functions/accounts/create-dashboard-view-from-preset';
import { handler as createView } from '../../functions/accounts/create-dashboard-view';
import { handler as deleteView } from '../../functions/accounts/delete-dashboard-view';
import { handler as getView } from '../../functions/accounts/get-dashboard-view';
import { handler as listViews } from '../../functions/accounts/list-dashboard-views';
import { handler as updateView } from '../../functions/accounts/update-dashboard-view';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { apiEvent, invoke } from '../support/api-event';
import { validConfiguration, validCreateBody } from '../support/dashboard-view-fixtures';
import { useFreshTable } from '../support/fresh-table';

const BASE = '/accounts/api/dashboard/views';
const NOT_FOUND = { status: 404, body: { message: 'Dashboard view not found' } };

beforeAll(async () => {
  await useFreshTable();
});

/** A client of the dashboard-view handlers for one pixel, as a key with `scopes` would call them. */
async function clientFor(pixelId: string, scopes = ['dashboards:write']) {
  const { apiKey, record } = await mintApiKey({ pixelId, scopes });
  const headers = { 'x-api-key': apiKey, 'x-pixel-id': pixelId };
  const one = (id: string) => ({ path: `${BASE}/${encodeURIComponent(id)}`, routePath: `${BASE}/{dashboardViewId}`, pathParameters: { dashboardViewId: id } });
  return {
    apiKeyPk: record.apiKeyPk,
    list: (query = '') => invoke(listViews, apiEvent({ method: 'GET', path: BASE + query, routePath: BASE, headers })),
    get: (id: string) => invoke(getView, apiEvent({ method: 'GET', ...one(id), headers })),
    create: (body: unknown = validCreateBody(), now?: Date) => invoke(createView, apiEvent({ method: 'POST', path: BASE, headers, body, now })),
    patch: (id: string, body: unknown, now?: Date) => invoke(updateView, apiEvent({ method: 'PATCH', ...one(id), headers, body, now })),
    copy: (id: string, body?: unknown, now?: Date) =>
      invoke(copyView, apiEvent({ method: 'POST', ...one(id), path: `${one(id).path}/copy`, routePath: `${BASE}/{dashboardViewId}/copy`, headers, body, now })),
    preset: (body: unknown, now?: Date) => invoke(fromPreset, apiEvent({ method: 'POST', path: `${BASE}/from-preset`, headers, body, now })),
    remove: (id: string) => invoke(deleteView, apiEvent({ method: 'DELETE', ...one(id), headers })),
  };
}

async function storedItem(pixelId: string, id: string) {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: `PIXEL#${pixelId}#VIEWS`, SK: `VIEW#${id}` } }));
  return Item;
}

describe('create and read', () => {
  it('stores the view with server-assigned ids and defaults, and answers it wrapped in dashboardView', async () => {
    const client = await clientFor('px_dv_create');
    const now = new Date('2026-04-10T12:00:00.000Z');

    const created = await client.create(validCreateBody({ type: 'attribution_view' }), now);

    expect(created.status).toBe(200);
    const view = created.body!.dashboardView;
    expect(view).toEqual({
      dashboardViewId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      pixelId: 'px_dv_create',
      type: 'attribution_view',
      name: 'Marketing overview',
      configuration: {
        ...validConfiguration(),
        widgets: [
          {
            id: expect.any(String),
            title: 'Spend',
            chartType: 'line',
            layout: { x: 0, y: 0, columns: 6, rows: 2, minColumns: 1, maxColumns: 12, minRows: 1, maxRows: 24, static: false },
            dataConfig: { measures: ['channel.spend'], dimensions: [], filters: [] },
          },
        ],
        sections: [expect.objectContaining({ id: expect.any(String), title: 'Pinned', ordinal: 0, collapsed: false, hidden: false })],
      },
      order: 0,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      createdBy: '',
      updatedBy: '',
    });
    expect(await client.get(view.dashboardViewId)).toEqual({ status: 200, headers: expect.anything(), body: created.body });
  });

  it('records the writing key server-side without returning it', async () => {
    const client = await clientFor('px_dv_audit');
    const { dashboardViewId } = (await client.create()).body!.dashboardView;

    const item = await storedItem('px_dv_audit', dashboardViewId);

    expect(item).toMatchObject({ createdByApiKeyPk: client.apiKeyPk, updatedByApiKeyPk: client.apiKeyPk, version: 1 });
    expect(JSON.stringify((await client.get(dashboardViewId)).body)).not.toContain(client.apiKeyPk);
    const editor = await clientFor('px_dv_audit');
    await editor.patch(dashboardViewId, { name: 'Renamed' });
    expect(await storedItem('px_dv_audit', dashboardViewId)).toMatchObject({
      createdByApiKeyPk: client.apiKeyPk,
      updatedByApiKeyPk: editor.apiKeyPk,
      version: 2,
    });
  });

  it('fills a 30-day date range ending on the request date when none is given', async () => {
    const client = await clientFor('px_dv_defaults');
    const created = await client.create({ name: 'Blank', configuration: {} }, new Date('2026-03-15T23:30:00.000Z'));
    expect(created.body!.dashboardView.configuration).toEqual({
      dateRange: { start: '2026-02-14', end: '2026-03-15' },
      granularity: 'day',
      attributionModel: 'first_click',
      attributionWindow: 30,
      grid: { maxWidth: 1200 },
      widgets: [],
      sections: [],
    });
  });

  it('answers 400 listing every problem, and stores nothing', async () => {
    const client = await clientFor('px_dv_invalid');
    const widget = { title: 't', layout: {}, dataConfig: { measures: ['nope.x'] } };
    const response = await client.create({ name: '', configuration: { granularity: 'daily', widgets: [widget] }, extra: 1 });
    expect(response.status).toBe(400);
    expect(response.body!.errors.map((issue: { path: string[] }) => issue.path.join('.'))).toEqual(
      expect.arrayContaining(['name', 'configuration.granularity', 'configuration.widgets.0.dataConfig.measures.0', 'extra']),
    );
    expect((await client.list()).body).toEqual({ dashboardViews: [] });
  });
});

describe('list', () => {
  it('answers summaries sorted by order, then createdAt, then id; order defaults to after the last view', async () => {
    const client = await clientFor('px_dv_list');
    const t = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
    const a = (await client.create(validCreateBody({ name: 'A' }), t(1))).body!.dashboardView; // order 0
    const b = (await client.create(validCreateBody({ name: 'B', order: 10 }), t(2))).body!.dashboardView;
    const c = (await client.create(validCreateBody({ name: 'C' }), t(3))).body!.dashboardView; // order 11
    const d = (await client.create(validCreateBody({ name: 'D', order: 10, type: 'pnl_view' }), t(0))).body!.dashboardView;
    const e = (await client.create(validCreateBody({ name: 'E', order: -5 }), t(4))).body!.dashboardView;

    const response = await client.list();

    expect(c.order).toBe(11);
    expect(response.status).toBe(200);
    expect(response.body!.dashboardViews.map((v: { name: string }) => v.name)).toEqual(['E', 'A', 'D', 'B', 'C']);
    expect(response.body!.dashboardViews[0]).toEqual({
      dashboardViewId: e.dashboardViewId,
      type: 'view',
      name: 'E',
      order: -5,
      createdAt: t(4).toISOString(),
      updatedAt: t(4).toISOString(),
    });
    expect([a, b, d].every((view) => view.dashboardViewId)).toBe(true);
  });

  it('breaks a tie of order and createdAt by id', async () => {
    const client = await clientFor('px_dv_ties');
    const now = new Date('2026-01-01T00:00:00.000Z');
    const ids = await Promise.all([1, 2, 3, 4].map(async () => (await client.create(validCreateBody({ order: 1 }), now)).body!.dashboardView.dashboardViewId));
    expect((await client.list()).body!.dashboardViews.map((v: { dashboardViewId: string }) => v.dashboardViewId)).toEqual([...ids].sort());
  });

  it('narrows by ?type, and rejects an unknown type or parameter', async () => {
    const client = await clientFor('px_dv_types');
    await client.create(validCreateBody({ name: 'V' }));
    await client.create(validCreateBody({ name: 'AV', type: 'attribution_view' }));

    expect((await client.list('?type=attribution_view')).body!.dashboardViews.map((v: { name: string }) => v.name)).toEqual(['AV']);
    expect((await client.list('?type=view')).body!.dashboardViews.map((v: { name: string }) => v.name)).toEqual(['V']);
    expect((await client.list('?type=pnl_view')).body).toEqual({ dashboardViews: [] });
    expect(await client.list('?type=board')).toMatchObject({ status: 400, body: { errors: [{ path: ['query', 'type'] }] } });
    expect(await client.list('?sort=name')).toMatchObject({ status: 400, body: { errors: [{ path: ['query', 'sort'] }] } });
  });
});

describe('PATCH', () => {
  it('changes only what is sent; configuration is replaced whole; updatedAt moves, createdAt stays', async () => {
    const client = await clientFor('px_dv_patch');
    const created = (await client.create(validCreateBody(), new Date('2026-02-01T00:00:00Z'))).body!.dashboardView;

    const renamed = await client.patch(created.dashboardViewId, { name: 'Renamed' }, new Date('2026-02-02T00:00:00Z'));
    expect(renamed.status).toBe(200);
    expect(renamed.body!.dashboardView).toEqual({ ...created, name: 'Renamed', updatedAt: '2026-02-02T00:00:00.000Z' });

    const replaced = await client.patch(created.dashboardViewId, {
      configuration: { granularity: 'week', dateRange: { start: '2026-01-01', end: '2026-01-31' } },
      order: 7,
    });
    expect(replaced.body!.dashboardView).toMatchObject({
      name: 'Renamed',
      order: 7,
      createdAt: created.createdAt,
      configuration: {
        dateRange: { start: '2026-01-01', end: '2026-01-31' },
        granularity: 'week',
        attributionModel: 'first_click',
        attributionWindow: 30,
        grid: { maxWidth: 1200 },
        widgets: [],
        sections: [],
      },
    });
    expect(replaced.body!.dashboardView.configuration).not.toHaveProperty('filters');
    expect((await client.get(created.dashboardViewId)).body).toEqual(replaced.body);
  });

  it('keeps widget ids sent back, so a GET-edit-PATCH round trip keeps identities', async () => {
    const client = await clientFor('px_dv_roundtrip');
    const created = (await client.create()).body!.dashboardView;
    const edited = { ...created.configuration, widgets: [...created.configuration.widgets, { ...created.configuration.widgets[0], id: undefined, title: 'New' }] };

    const patched = (await client.patch(created.dashboardViewId, { configuration: edited })).body!.dashboardView;

    expect(patched.configuration.widgets[0]).toEqual(created.configuration.widgets[0]);
    expect(patched.configuration.widgets[1].id).toEqual(expect.any(String));
    expect(patched.configuration.widgets[1].id).not.toBe(created.configuration.widgets[0].id);
    expect(patched.configuration.sections).toEqual(created.configuration.sections);
  });

  it('answers 400 to an empty body or a member it does not change, and changes nothing', async () => {
    const client = await clientFor('px_dv_patch400');
    const created = (await client.create()).body!.dashboardView;
    expect(await client.patch(created.dashboardViewId, {})).toMatchObject({ status: 400, body: { errors: [{ path: [], key: '' }] } });
    expect(await client.patch(created.dashboardViewId, { name: 'x', type: 'pnl_view' })).toMatchObject({ status: 400, body: { errors: [{ path: ['type'] }] } });
    expect((await client.get(created.dashboardViewId)).body!.dashboardView).toEqual(created);
  });

  it('never loses an update when PATCHes of different members race', async () => {
    const client = await clientFor('px_dv_race');
    const { dashboardViewId } = (await client.create()).body!.dashboardView;

    const responses = await Promise.all([
      client.patch(dashboardViewId, { name: 'Raced' }),
      client.patch(dashboardViewId, { order: 42 }),
      client.patch(dashboardViewId, { configuration: { granularity: 'month' } }),
    ]);

    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    const stored = (await client.get(dashboardViewId)).body!.dashboardView;
    expect(stored).toMatchObject({ name: 'Raced', order: 42, configuration: { granularity: 'month' } });
    expect((await storedItem('px_dv_race', dashboardViewId))!.version).toBe(4);
  });

  it('applies every one of many racing PATCHes exactly once', async () => {
    const client = await clientFor('px_dv_race_many');
    const ids = await Promise.all([1, 2, 3, 4].map(async () => (await client.create()).body!.dashboardView.dashboardViewId));
    const [target] = ids as [string];

    // A PATCH fails its condition only when another one committed, so up to 10 (its attempts) always land.
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => client.patch(target, i % 2 ? { name: `n${i}` } : { order: i })));

    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect((await storedItem('px_dv_race_many', target))!.version).toBe(11);
  });

  it('answers 404 to a PATCH of a view deleted meanwhile, and does not bring it back', async () => {
    const client = await clientFor('px_dv_patch_deleted');
    const { dashboardViewId } = (await client.create()).body!.dashboardView;
    await client.remove(dashboardViewId);
    expect(await client.patch(dashboardViewId, { name: 'Ghost' })).toMatchObject(NOT_FOUND);
    expect(await storedItem('px_dv_patch_deleted', dashboardViewId)).toBeUndefined();
  });
});

describe('copy', () => {
  it('makes a new view with "<name> (copy)", new timestamps, the next order, and the same widget ids', async () => {
    const client = await clientFor('px_dv_copy');
    const source = (await client.create(validCreateBody({ type: 'pnl_view', order: 4 }), new Date('2026-01-01T00:00:00Z'))).body!.dashboardView;
    const now = new Date('2026-05-05T05:05:05.000Z');

    const copy = await client.copy(source.dashboardViewId, undefined, now);

    expect(copy.status).toBe(200);
    expect(copy.body!.dashboardView).toEqual({
      ...source,
      dashboardViewId: expect.not.stringMatching(source.dashboardViewId),
      name: 'Marketing overview (copy)',
      order: 5,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    });
    expect((await client.list()).body!.dashboardViews).toHaveLength(2);
  });

  it('takes a name, an empty object, or no body at all', async () => {
    const client = await clientFor('px_dv_copy_bodies');
    const source = (await client.create(validCreateBody({ name: 'x'.repeat(100) }))).body!.dashboardView;
    expect((await client.copy(source.dashboardViewId, { name: 'Mine' })).body!.dashboardView.name).toBe('Mine');
    expect((await client.copy(source.dashboardViewId, {})).body!.dashboardView.name).toBe(`${'x'.repeat(92)}… (copy)`);
    expect((await client.copy(source.dashboardViewId)).status).toBe(200);
    expect(await client.copy(source.dashboardViewId, { name: 'a', type: 'view' })).toMatchObject({ status: 400, body: { errors: [{ path: ['type'] }] } });
    expect(await client.copy(source.dashboardViewId, '[1]')).toMatchObject({ status: 400 });
  });
});

describe('from-preset', () => {
  it('builds one sparkline tile per measure, laid out in reading order, titled by the catalog when no title is sent', async () => {
    const client = await clientFor('px_dv_preset');
    const measures = ['channel.spend', 'channel.roas', 'meta.cpm', 'google.clicks', 'tiktok.ctr'];
    const now = new Date('2026-06-30T08:00:00.000Z');

    const response = await client.preset({ name: 'KPIs', widgets: measures.map((measure, i) => (i === 0 ? { measure, title: 'Money out' } : { measure })) }, now);

    expect(response.status).toBe(200);
    const view = response.body!.dashboardView;
    expect(view).toMatchObject({ name: 'KPIs', type: 'view', order: 0, createdBy: '', pixelId: 'px_dv_preset' });
    expect(view.configuration).toMatchObject({
      dateRange: { start: '2026-06-01', end: '2026-06-30' },
      granularity: 'day',
      attributionModel: 'first_click',
      attributionWindow: 30,
      grid: { maxWidth: 1200 },
      sections: [],
    });
    type Tile = { title: string; chartType: string; dataConfig: unknown; layout: { x: number; y: number } };
    expect(view.configuration.widgets.map((w: Tile) => [w.title, w.chartType, w.dataConfig, w.layout.x, w.layout.y])).toEqual([
      ['Money out', 'sparkline', { measures: ['channel.spend'], dimensions: [], filters: [] }, 0, 0],
      ['ROAS', 'sparkline', { measures: ['channel.roas'], dimensions: [], filters: [] }, 3, 0],
      ['Meta CPM', 'sparkline', { measures: ['meta.cpm'], dimensions: [], filters: [] }, 6, 0],
      ['Google Ads Clicks', 'sparkline', { measures: ['google.clicks'], dimensions: [], filters: [] }, 9, 0],
      ['TikTok CTR', 'sparkline', { measures: ['tiktok.ctr'], dimensions: [], filters: [] }, 0, 2],
    ]);
    expect(new Set(view.configuration.widgets.map((w: { id: string }) => w.id)).size).toBe(5);
    expect((await client.get(view.dashboardViewId)).body).toEqual(response.body);
  });

  it('takes type, dateRange, granularity and the attribution settings', async () => {
    const client = await clientFor('px_dv_preset_opts');
    const response = await client.preset({
      name: 'P&L',
      type: 'pnl_view',
      widgets: [{ measure: 'channel.spend', title: 'Spend' }],
      dateRange: { start: '2026-01-01', end: '2026-03-31' },
      granularity: 'month',
      attributionModel: 'any_click',
      attributionWindow: 7,
    });
    expect(response.body!.dashboardView).toMatchObject({
      type: 'pnl_view',
      configuration: { dateRange: { start: '2026-01-01', end: '2026-03-31' }, granularity: 'month', attributionModel: 'any_click', attributionWindow: 7 },
    });
  });

  it('answers 400 naming each unknown measure, and stores nothing', async () => {
    const client = await clientFor('px_dv_preset_400');
    const widgets = [{ measure: 'orders.revenue', title: 'a' }, { measure: 'channel.spend', title: 'b' }, { measure: 'x.y', title: 'c' }];
    const response = await client.preset({ name: 'x', widgets });
    expect(response).toMatchObject({
      status: 400,
      body: {
        errors: [
          { path: ['widgets', '0', 'measure'], message: expect.stringContaining("'orders.revenue'") },
          { path: ['widgets', '2', 'measure'], message: expect.stringContaining("'x.y'") },
        ],
      },
    });
    expect((await client.list()).body).toEqual({ dashboardViews: [] });
  });
});

describe('delete', () => {
  it('answers { deleted: true, dashboardViewId }, then 404 on every route for that id', async () => {
    const client = await clientFor('px_dv_delete');
    const { dashboardViewId } = (await client.create()).body!.dashboardView;

    expect(await client.remove(dashboardViewId)).toMatchObject({ status: 200, body: { deleted: true, dashboardViewId } });

    expect(await client.remove(dashboardViewId)).toMatchObject(NOT_FOUND);
    expect(await client.get(dashboardViewId)).toMatchObject(NOT_FOUND);
    expect(await client.copy(dashboardViewId)).toMatchObject(NOT_FOUND);
    expect((await client.list()).body).toEqual({ dashboardViews: [] });
  });
});

describe('isolation: a view exists only for its own pixel', () => {
  it('is 404 on every route by id for another pixel, which changes nothing, and absent from its list', async () => {
    const owner = await clientFor('px_dv_owner');
    const intruder = await clientFor('px_dv_intruder');
    const view = (await owner.create()).body!.dashboardView;
    const id = view.dashboardViewId;

    expect(await intruder.get(id)).toMatchObject(NOT_FOUND);
    expect(await intruder.patch(id, { name: 'Mine now' })).toMatchObject(NOT_FOUND);
    expect(await intruder.copy(id)).toMatchObject(NOT_FOUND);
    expect(await intruder.copy(id, { name: 'Stolen' })).toMatchObject(NOT_FOUND);
    expect(await intruder.remove(id)).toMatchObject(NOT_FOUND);
    expect((await intruder.list()).body).toEqual({ dashboardViews: [] });

    // Views the intruder creates are its own, and invisible to the owner.
    const own = (await intruder.preset({ name: 'Theirs', widgets: [{ measure: 'channel.spend', title: 's' }] })).body!.dashboardView;
    await intruder.create(validCreateBody({ name: 'Theirs too' }));
    expect(own.pixelId).toBe('px_dv_intruder');
    expect(await owner.get(own.dashboardViewId)).toMatchObject(NOT_FOUND);

    expect((await owner.get(id)).body!.dashboardView).toEqual(view);
    expect((await owner.list()).body!.dashboardViews.map((v: { dashboardViewId: string }) => v.dashboardViewId)).toEqual([id]);
  });

  it('answers a key presented for another pixel with 401, before anything else', async () => {
    const owner = await clientFor('px_dv_keyowner');
    const { apiKey } = await mintApiKey({ pixelId: 'px_dv_elsewhere', scopes: ['dashboards:write'] });
    const { dashboardViewId } = (await owner.create()).body!.dashboardView;
    const response = await invoke(
      getView,
      apiEvent({
        method: 'GET',
        path: `${BASE}/${dashboardViewId}`,
        routePath: `${BASE}/{dashboardViewId}`,
        pathParameters: { dashboardViewId },
        headers: { 'x-api-key': apiKey, 'x-pixel-id': 'px_dv_keyowner' },
      }),
    );
    expect(response.status).toBe(401);
  });

  it.each([
    ['a word', 'abc'],
    ['a UUID in upper case', '7A7AC543-9801-4C44-9108-FA3CF097FF78'],
    ['a UUID with a suffix', '7a7ac543-9801-4c44-9108-fa3cf097ff78x'],
    ['2,000 characters', 'a'.repeat(2_000)],
    ['spaces and symbols', 'a b#c%'],
  ])('answers 404, not 400, to a malformed id: %s', async (_, id) => {
    const client = await clientFor('px_dv_malformed');
    expect(await client.get(id)).toMatchObject(NOT_FOUND);
    expect(await client.patch(id, { name: 'n' })).toMatchObject(NOT_FOUND);
    expect(await client.copy(id)).toMatchObject(NOT_FOUND);
    expect(await client.remove(id)).toMatchObject(NOT_FOUND);
  });
});

describe('scopes', () => {
  it('lets dashboards:read list and get, and nothing else', async () => {
    const writer = await clientFor('px_dv_scopes');
    const reader = await clientFor('px_dv_scopes', ['dashboards:read']);
    const { dashboardViewId } = (await writer.create()).body!.dashboardView;

    expect((await reader.list()).status).toBe(200);
    expect((await reader.get(dashboardViewId)).status).toBe(200);
    for (const response of [
      await reader.create(),
      await reader.patch(dashboardViewId, { name: 'n' }),
      await reader.copy(dashboardViewId),
      await reader.preset({ name: 'n', widgets: [{ measure: 'channel.spend', title: 't' }] }),
      await reader.remove(dashboardViewId),
    ]) {
      expect(response).toMatchObject({ status: 403, body: { message: "This API key does not have the 'dashboards:write' scope" } });
    }
  });

  it('refuses keys without a dashboards scope, legacy ones included', async () => {
    for (const scope of ['analytics:read', 'account:write', 'db_query']) {
      const client = await clientFor('px_dv_noscope', [scope]);
      expect((await client.list()).status).toBe(403);
      expect((await client.get('7a7ac543-9801-4c44-9108-fa3cf097ff78')).status).toBe(403);
    }
  });

  it('answers 403 to a body pixelId of another pixel', async () => {
    const client = await clientFor('px_dv_bodypixel');
    expect((await client.create(validCreateBody({ pixelId: 'px_other' }))).status).toBe(403);
  });
});
