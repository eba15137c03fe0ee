import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, eventLines, mintKey, pipelineDrained, runCli, startLocalServer, type RunningServer } from '../support/local-server';

/*
 * Costs and cohorts end to end: orders with items from import-orders, SKU costs from
 * import-costs, settings through PUT /accounts/api/costs/settings, then the query's profit
 * measures and the cohort endpoint, all through the local server.
 */
const PIXEL = 'px_cohort_e2e';
let server: RunningServer;
let reader: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'cohort-e2e-'));
const ndjson = (name: string, lines: unknown[]) => {
  const path = join(dir, name);
  writeFileSync(path, lines.map((line) => JSON.stringify(line)).join('\n'));
  return path;
};
const order = (fields: Record<string, unknown>) => ({ currency: 'USD', sourceName: 'web', paymentGateway: 'stripe', ...fields });

beforeAll(async () => {
  server = await startLocalServer();
  const orders = ndjson('orders.ndjson', [
    order({ orderId: 'A-1', orderDate: '2026-01-05T10:00:00Z', value: 100, items: [{ sku: 'S1', quantity: 2, price: 50 }], customer: { emails: ['ann@example.org'] } }),
    order({ orderId: 'A-2', orderDate: '2026-03-10T10:00:00Z', value: 50, items: [{ sku: 'S1', quantity: 1, price: 50 }], customer: { emails: ['ann@example.org'] } }),
    order({ orderId: 'B-1', orderDate: '2026-01-20T10:00:00Z', value: 80, currency: 'EUR', paymentGateway: 'paypal', customer: { userIds: ['bob'] } }),
    order({ orderId: 'C-1', orderDate: '2026-02-14T10:00:00Z', value: 30, items: [{ sku: 'S2', quantity: 1, price: 30, cost: 10 }], customer: { userIds: ['cid'] } }),
    order({ orderId: 'D-1', orderDate: '2026-01-28T10:00:00Z', value: 20, financialStatus: 'pending', customer: { userIds: ['dan'] } }),
  ]);
  const imported = await runCli(server, 'bin/import-orders.ts', '--pixel', PIXEL, '--file', orders);
  expect(imported.code, imported.stderr).toBe(0);
  const rates = join(dir, 'ads.json');
  writeFileSync(rates, JSON.stringify({ fxRates: [{ date: '2025-01-01', rates: { USD: 1, EUR: 0.8 } }], ads: [] }));
  expect((await runCli(server, 'bin/import-ads.ts', '--pixel', PIXEL, '--file', rates)).code).toBe(0);
  const key = await mintKey(server, PIXEL, 'analytics:read');
  reader = { 'x-api-key': key.apiKey, 'x-pixel-id': PIXEL };
});
afterAll(async () => {
  await server?.stop();
});

describe('costs and cohorts through the local server', () => {
  it('imports SKU costs all or nothing, with rejected lines and reasons on stderr', async () => {
    const bad = await runCli(server, 'bin/import-costs.ts', '--pixel', PIXEL, '--file', ndjson('bad.ndjson', [{ sku: 'S1', cost: 99, currency: 'USD', effectiveFrom: '2026-01-01' }, { sku: 'S1', cost: 'ten', currency: 'USD', effectiveFrom: '2026-01-01' }]));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('Rejected line 2: cost:');
    expect(bad.stdout).toContain('Imported nothing');
    const good = await runCli(server, 'bin/import-costs.ts', '--pixel', PIXEL, '--file', ndjson('good.ndjson', [{ sku: 'S1', cost: 10, currency: 'USD', effectiveFrom: '2026-01-01' }]));
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain('Imported 1 SKU cost');
    const usage = await runCli(server, 'bin/import-costs.ts', '--pixel', PIXEL);
    expect(usage.code).toBe(2);
  });

  it('stores cost settings with costs:write and announces them', async () => {
    const writer = await mintKey(server, PIXEL, 'costs:write');
    const headers = { 'x-api-key': writer.apiKey, 'x-pixel-id': PIXEL };
    const settings = { defaultCogsPercent: 50, handlingFeePerItem: 0, defaultShippingCostPerOrder: 0, gatewayFees: [{ gateway: 'stripe', percent: 0, fixed: 1 }], currency: 'USD' };
    expect((await call(server, 'PUT', '/accounts/api/costs/settings', { headers: reader, body: settings })).status).toBe(403);
    expect((await call(server, 'PUT', '/accounts/api/costs/settings', { headers, body: { ...settings, defaultCogsPercent: 150 } })).status).toBe(400);
    expect(await call(server, 'PUT', '/accounts/api/costs/settings', { headers, body: settings })).toMatchObject({ status: 200, body: { costSettings: settings } });
    expect(await call(server, 'GET', '/accounts/api/costs/settings', { headers })).toMatchObject({ status: 200, body: { costSettings: settings } });
    await pipelineDrained(server);
    expect(eventLines(server).filter((line) => line.detail?.pixelId === PIXEL).map((line) => line.detail.change)).toEqual([{ kind: 'costSettings' }]);
  });

  it('answers cohorts with LTV, retention and margins, and the profit measures of the query', async () => {
    await pipelineDrained(server);
    const body = { pixelId: PIXEL, granularity: 'month', measures: ['orders.customers_cohort', 'orders.ltv_cohort_gross_revenue', 'orders.cohort_retention_percent', 'orders.cohort_cm1', 'orders.cohort_cm2'], dateRange: { start: '2026-01-01', end: '2026-02-28' }, periods: 3 };
    const response = await call(server, 'POST', '/db-mgmt/api/query-cohort-analysis', { headers: reader, body });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const points = response.body.results[0].data.primary as Array<Record<string, unknown>>;
    const point = (dt: string, period: number) => points.find((entry) => entry.dt === dt && entry.period === period);
    // January: Ann (A-1: S1 at 10 ×2, Stripe 1) and Bob (80 EUR = 100 USD, 50 % COGS, no PayPal fee); Ann's A-2 in period 2.
    expect(point('2026-01', 0)).toMatchObject({ complete: true, 'orders.customers_cohort': 2, 'orders.ltv_cohort_gross_revenue': 100, 'orders.cohort_retention_percent': 100, 'orders.cohort_cm1': 65, 'orders.cohort_cm2': 64.5 });
    expect(point('2026-01', 2)).toMatchObject({ periodStart: '2026-03-01T00:00:00.000+00:00', 'orders.ltv_cohort_gross_revenue': 125, 'orders.cohort_retention_percent': 50, 'orders.cohort_cm2': 84 });
    expect(point('2026-02', 0)).toMatchObject({ 'orders.customers_cohort': 1, 'orders.cohort_cm1': 20, 'orders.cohort_cm2': 19 });
    expect(points).toHaveLength(8);

    const profit = await call(server, 'POST', '/db-mgmt/api/query', { headers: reader, body: { pixelId: PIXEL, measures: ['orders.net_revenue', 'orders.cogs', 'orders.payment_fees', 'orders.cm2'], dateRange: { start: '2026-01-01', end: '2026-03-31' } } });
    expect(profit.status).toBe(200);
    expect(profit.body.results[0].measureDetails.map((detail: { primarySum: number }) => detail.primarySum)).toEqual([280, 90, 3, 187]);
  });

  it('never reads the stored order settings: only the body\'s orderSettings count a pending order', async () => {
    const admin = await mintKey(server, PIXEL, 'account:write');
    const stored = await call(server, 'PUT', '/accounts/api/account/settings/order', {
      headers: { 'x-api-key': admin.apiKey, 'x-pixel-id': PIXEL },
      body: { countPendingOrders: true, countVoidedOrders: false, refundDateAttribution: 'refund_date', exclusionFilters: [] },
    });
    expect(stored.status).toBe(200);
    const body = { pixelId: PIXEL, granularity: 'month', measures: ['orders.customers_cohort'], dateRange: { start: '2026-01-01', end: '2026-01-31' }, periods: 0 };
    const size = async (extra: Record<string, unknown>) =>
      (await call(server, 'POST', '/db-mgmt/api/query-cohort-analysis', { headers: reader, body: { ...body, ...extra } })).body.results[0].data.primary[0]['orders.customers_cohort'];
    expect(await size({})).toBe(2);
    expect(await size({ orderSettings: { countPendingOrders: true } })).toBe(3);
  });

  it('checks the pixel, the scope and the body of a cohort query', async () => {
    const body = { pixelId: PIXEL, granularity: 'month', measures: ['orders.customers_cohort'], dateRange: { start: '2026-01-01', end: '2026-02-28' } };
    expect((await call(server, 'POST', '/db-mgmt/api/query-cohort-analysis', { headers: reader, body: { ...body, pixelId: 'px_other' } })).status).toBe(403);
    const writer = await mintKey(server, PIXEL, 'events:write');
    expect((await call(server, 'POST', '/db-mgmt/api/query-cohort-analysis', { headers: { 'x-api-key': writer.apiKey, 'x-pixel-id': PIXEL }, body })).status).toBe(403);
    const invalid = await call(server, 'POST', '/db-mgmt/api/query-cohort-analysis', { headers: reader, body: { ...body, granularity: 'day', periods: 400 } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((error: { key: string }) => error.key)).toContain('granularity');
  });
});
