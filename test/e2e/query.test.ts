import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, mintKey, runCli, startLocalServer, type RunningServer } from '../support/local-server';

const PIXEL = 'px_query_e2e';
const PATH = '/db-mgmt/api/query';
let server: RunningServer;
let headers: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'query-e2e-'));

const line = (fields: Record<string, unknown>) => JSON.stringify({ currency: 'USD', sourceName: 'web', paymentGateway: 'stripe', ...fields });

beforeAll(async () => {
  server = await startLocalServer();
  const orders = join(dir, 'orders.ndjson');
  writeFileSync(
    orders,
    [
      line({ orderId: 'A-1', orderDate: '2026-02-10T10:00:00Z', value: 40, customer: { emails: ['ann@example.org'] } }),
      line({ orderId: 'A-2', orderDate: '2026-03-02T10:00:00Z', value: 60, customer: { emails: ['ANN@example.org'] }, refunds: [{ amount: 15, processedAt: '2026-03-04T09:00:00Z' }] }),
      line({ orderId: 'B-1', orderDate: '2026-03-03T10:00:00Z', value: 100, currency: 'EUR', sourceName: 'pos', customer: { userIds: ['bob'] } }),
      line({ orderId: 'C-1', orderDate: '2026-03-03T11:00:00Z', value: 500, financialStatus: 'pending', customer: { userIds: ['cid'] } }),
    ].join('\n'),
  );
  const imported = await runCli(server, 'bin/import-orders.ts', '--pixel', PIXEL, '--file', orders);
  expect(imported.code, imported.stderr).toBe(0);
  const rates = join(dir, 'ads.json');
  writeFileSync(rates, JSON.stringify({ fxRates: [{ date: '2026-01-01', rates: { USD: 1, EUR: 0.8 } }], ads: [] }));
  expect((await runCli(server, 'bin/import-ads.ts', '--pixel', PIXEL, '--file', rates)).code).toBe(0);

  const writer = await mintKey(server, PIXEL, 'events:write');
  const sent = await call(server, 'POST', '/tr/api/events', {
    headers: { 'x-api-key': writer.apiKey, 'x-pixel-id': PIXEL },
    body: {
      events: [
        { name: 'page_view', eventId: 'pv-1', timestamp: '2026-03-02T09:00:00Z', page: { url: 'https://shop.example/?utm_source=google&utm_medium=cpc' }, click: { fbp: 'fb.1.1' } },
        { name: 'page_view', eventId: 'pv-2', timestamp: '2026-03-02T09:30:00Z', page: { url: 'https://shop.example/p' }, click: { fbp: 'fb.1.1' }, user: { emails: ['ann@example.org'] } },
        { name: 'purchase', eventId: 'pu-1', timestamp: '2026-03-03T12:00:00Z', user: { userIds: ['dan'] }, data: { orderId: 'D-1', value: 20, currency: 'USD', sourceName: 'web' } },
      ],
    },
  });
  expect(sent.status).toBe(200);
  const key = await mintKey(server, PIXEL, 'analytics:read');
  headers = { 'x-api-key': key.apiKey, 'x-pixel-id': PIXEL };
});
afterAll(async () => {
  await server?.stop();
});

/** Reads become visible once projected; poll a bounded number of times rather than sleep. */
async function queryUntil(body: Record<string, unknown>, done: (result: any) => boolean) {
  let response = await call(server, 'POST', PATH, { headers, body });
  for (let attempt = 0; attempt < 40 && response.status === 200 && !done(response.body.results[0]); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    response = await call(server, 'POST', PATH, { headers, body });
  }
  return response;
}

describe('POST /db-mgmt/api/query through the local server', () => {
  it('answers orders and events measures on data from the import CLIs and the events API', async () => {
    const body = {
      pixelId: PIXEL,
      measures: ['orders.orders', { id: 'orders.total_revenue' }, 'orders.refunds', 'orders.new_customers', 'orders.returning_customer_orders'],
      granularity: 'day',
      dateRange: { start: '2026-03-02', end: '2026-03-04' },
    };
    const response = await queryUntil(body, (result) => result.measureDetails[0].primarySum === 3);
    expect(response.status).toBe(200);
    const [result] = response.body.results;
    expect(result).toMatchObject({ granularity: 'day', dimensions: [], dateRange: body.dateRange, compareDateRange: { start: '2026-02-27', end: '2026-03-01' }, timezone: 'UTC', currency: 'USD' });
    // A-2 is Ann's second order (her first, in February, is outside the range); D-1 comes from a purchase event;
    // B-1 is 100 EUR = 125 USD; C-1 is pending, so not counted.
    expect(result.data.primary).toEqual([
      { dt: '2026-03-02', start: '2026-03-02T00:00:00.000+00:00', end: '2026-03-02T23:59:59.999+00:00', 'orders.orders': 1, 'orders.total_revenue': 60, 'orders.refunds': 0, 'orders.new_customers': 0, 'orders.returning_customer_orders': 1 },
      { dt: '2026-03-03', start: '2026-03-03T00:00:00.000+00:00', end: '2026-03-03T23:59:59.999+00:00', 'orders.orders': 2, 'orders.total_revenue': 145, 'orders.refunds': 0, 'orders.new_customers': 2, 'orders.returning_customer_orders': 0 },
      { dt: '2026-03-04', start: '2026-03-04T00:00:00.000+00:00', end: '2026-03-04T23:59:59.999+00:00', 'orders.orders': 0, 'orders.total_revenue': 0, 'orders.refunds': 15, 'orders.new_customers': 0, 'orders.returning_customer_orders': 0 },
    ]);

    const events = await queryUntil({ pixelId: PIXEL, measures: ['events.count', 'events.page_views', 'events.visitors', 'events.conversion_rate'], dateRange: { start: '2026-03-02', end: '2026-03-03' } }, (r) => r.measureDetails[0].primarySum === 3);
    // fb.1.1 and Ann's email were seen together: one person; dan another.
    expect(events.body.results[0].data.primary[0]).toMatchObject({ 'events.count': 3, 'events.page_views': 2, 'events.visitors': 2, 'events.conversion_rate': 50 });
  });

  it('never reads the stored order settings: a query without orderSettings uses the defaults', async () => {
    const owner = await mintKey(server, PIXEL, 'account:write');
    const put = await call(server, 'PUT', '/accounts/api/account/settings/order', {
      headers: { 'x-api-key': owner.apiKey, 'x-pixel-id': PIXEL },
      body: { countPendingOrders: true, countVoidedOrders: true, refundDateAttribution: 'order_date', exclusionFilters: [] },
    });
    expect(put.status).toBe(200);
    const body = { pixelId: PIXEL, measures: ['orders.orders'], dateRange: { start: '2026-03-03', end: '2026-03-03' } };
    expect((await call(server, 'POST', PATH, { headers, body })).body.results[0].data.primary[0]['orders.orders']).toBe(2);
    const asked = await call(server, 'POST', PATH, { headers, body: { ...body, orderSettings: { countPendingOrders: true } } });
    expect(asked.body.results[0].data.primary[0]['orders.orders']).toBe(3);
  });

  it('refuses a body for another pixel, a key without the scope, and an invalid body', async () => {
    const body = { pixelId: PIXEL, measures: ['orders.orders'], dateRange: { start: '2026-03-02', end: '2026-03-04' } };
    expect((await call(server, 'POST', PATH, { headers, body: { ...body, pixelId: 'px_other' } })).status).toBe(403);
    const writer = await mintKey(server, PIXEL, 'events:write');
    expect((await call(server, 'POST', PATH, { headers: { 'x-api-key': writer.apiKey, 'x-pixel-id': PIXEL }, body })).status).toBe(403);
    const invalid = await call(server, 'POST', PATH, { headers, body: { ...body, measures: ['events.count'], dimensions: ['orders.tag'], timezone: 'Nowhere/Else' } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors).toEqual([expect.objectContaining({ path: ['timezone'] })]);
    expect((await call(server, 'POST', `${PATH}?debug=1`, { headers, body })).status).toBe(400);
  });

  it('lists the new measures with their contexts and the dimensions in the catalog', async () => {
    const catalog = await call(server, 'GET', '/db-mgmt/api/measures?context=query', { headers });
    expect(catalog.status).toBe(200);
    expect(catalog.body.measures.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining(['orders.net_revenue', 'events.visitors', 'core.mer', 'channel.spend']));
    expect(catalog.body.dimensions.map((d: { id: string }) => d.id)).toContain('orders.customer_type');
  });
});
