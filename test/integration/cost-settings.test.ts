import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as getCostSettings } from '../../functions/accounts/get-cost-settings';
import { handler as putCostSettings } from '../../functions/accounts/put-cost-settings';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { importCostsFile } from '../../shared/costs/import-costs';
import { readSkuCosts as loadSkuCosts } from '../../shared/analytics/store/sku-costs';
import { apiEvent, invoke } from '../support/api-event';
import { recordedEvents, useFreshTable } from '../support/fresh-table';
import { drainPipeline } from '../support/pipeline';

const PATH = '/accounts/api/costs/settings';
const settings = {
  defaultCogsPercent: 35,
  handlingFeePerItem: 0.5,
  defaultShippingCostPerOrder: 4.9,
  gatewayFees: [{ gateway: 'stripe', percent: 2.9, fixed: 0.3 }],
  currency: 'EUR',
};

beforeAll(async () => {
  await useFreshTable();
});

async function clientFor(pixelId: string, scopes: string[] = ['costs:write']) {
  const { apiKey, record } = await mintApiKey({ pixelId, scopes });
  const headers = { 'x-api-key': apiKey, 'x-pixel-id': pixelId };
  return {
    apiKeyPk: record.apiKeyPk,
    put: (body: unknown, extra: Record<string, string> = {}, now?: Date) => invoke(putCostSettings, apiEvent({ method: 'PUT', path: PATH, headers: { ...headers, ...extra }, body, now })),
    get: () => invoke(getCostSettings, apiEvent({ method: 'GET', path: PATH, headers })),
  };
}

describe('cost settings handlers (real SDK, dynalite, local EventBridge)', () => {
  it('answers zero costs before anything is set, stores a PUT and announces it with accountUpdated', async () => {
    const client = await clientFor('px_costs');
    expect((await client.get()).body).toEqual({ costSettings: { defaultCogsPercent: 0, handlingFeePerItem: 0, defaultShippingCostPerOrder: 0, gatewayFees: [], currency: 'USD' } });
    const requestTime = new Date('2026-03-05T08:00:00.000Z');
    const response = await client.put(settings, {}, requestTime);
    expect(response).toMatchObject({ status: 200, body: { costSettings: settings } });
    expect((await client.get()).body).toEqual({ costSettings: settings });
    await drainPipeline();
    expect(recordedEvents('px_costs')).toEqual([
      expect.objectContaining({
        'detail-type': 'accountUpdated',
        detail: { eventId: 'px_costs:costSettings:1', pixelId: 'px_costs', actor: `cli:${client.apiKeyPk}`, change: { kind: 'costSettings' }, occurredAt: requestTime.toISOString() },
      }),
    ]);
  });

  it('rejects a bad body with 400 at its path and changes nothing', async () => {
    const client = await clientFor('px_costs_bad');
    await client.put(settings);
    await drainPipeline();
    const cases: Array<[unknown, string[]]> = [
      [{ ...settings, defaultCogsPercent: 101 }, ['defaultCogsPercent']],
      [{ ...settings, handlingFeePerItem: -1 }, ['handlingFeePerItem']],
      [{ ...settings, currency: 'euro' }, ['currency']],
      [{ ...settings, gatewayFees: [{ gateway: 'stripe', percent: 2 }] }, ['gatewayFees', '0', 'fixed']],
      [{ ...settings, gatewayFees: [{ gateway: 'Stripe', percent: 2, fixed: 0 }, { gateway: ' stripe ', percent: 1, fixed: 0 }] }, ['gatewayFees', '1', 'gateway']],
      [{ ...settings, colour: 'red' }, ['colour']],
      [{ defaultCogsPercent: 10 }, ['handlingFeePerItem']],
    ];
    for (const [body, path] of cases) {
      const response = await client.put(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body!.errors.map((error: { path: string[] }) => error.path.join('.'))).toContain(path.join('.'));
    }
    expect((await client.get()).body).toEqual({ costSettings: settings });
    await drainPipeline();
    expect(recordedEvents('px_costs_bad')).toHaveLength(1);
  });

  it('lets costs:write read, costs:read only read, and other scopes neither', async () => {
    const reader = await clientFor('px_costs_scopes', ['costs:read']);
    expect((await reader.get()).status).toBe(200);
    expect((await reader.put(settings)).status).toBe(403);
    const other = await clientFor('px_costs_scopes', ['account:write', 'analytics:read']);
    expect((await other.get()).status).toBe(403);
  });

  it('answers a retried PUT with the same Idempotency-Key once, with one event', async () => {
    const client = await clientFor('px_costs_idem');
    const first = await client.put(settings, { 'idempotency-key': 'k-1' });
    const again = await client.put(settings, { 'idempotency-key': 'k-1' });
    expect(again).toMatchObject({ status: first.status, body: first.body });
    await drainPipeline();
    expect(recordedEvents('px_costs_idem').map((event) => event.detail.eventId)).toEqual(['px_costs_idem:costSettings:1']);
  });
});

describe('import-costs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'costs-'));
  const file = (name: string, lines: unknown[]) => {
    const path = join(dir, name);
    writeFileSync(path, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n'));
    return path;
  };

  it('stores every line of a good file, and a re-import of a SKU and start date replaces it', async () => {
    const good = file('good.ndjson', [
      { sku: 'S1', cost: 10, currency: 'USD', effectiveFrom: '2026-01-01', effectiveTo: '2026-01-31' },
      { sku: 'S1', cost: 12, currency: 'USD', effectiveFrom: '2026-02-01' },
      { sku: 'S2', cost: 3.5, currency: 'EUR', effectiveFrom: '2025-06-01' },
    ]);
    expect(await importCostsFile('px_sku', good)).toEqual({ lines: 3, skus: 2, rejected: 0 });
    await importCostsFile('px_sku', file('again.ndjson', [{ sku: 'S1', cost: 11, currency: 'USD', effectiveFrom: '2026-02-01' }]));
    const stored = await loadSkuCosts('px_sku');
    expect(stored.sort((a, b) => `${a.sku}${a.effectiveFrom}`.localeCompare(`${b.sku}${b.effectiveFrom}`))).toEqual([
      { sku: 'S1', cost: 10, currency: 'USD', effectiveFrom: '2026-01-01', effectiveTo: '2026-01-31' },
      { sku: 'S1', cost: 11, currency: 'USD', effectiveFrom: '2026-02-01' },
      { sku: 'S2', cost: 3.5, currency: 'EUR', effectiveFrom: '2025-06-01' },
    ]);
  });

  it('stores nothing from a file with a bad line, and names every bad line with its reasons', async () => {
    const rejections: unknown[] = [];
    const bad = file('bad.ndjson', [
      { sku: 'S9', cost: 1, currency: 'USD', effectiveFrom: '2026-01-01' },
      { sku: 'S9', cost: -1, currency: 'USD', effectiveFrom: '2026-01-01' },
      'not json',
      { sku: 'S9', cost: 1, currency: 'USD', effectiveFrom: '2026-02-01', effectiveTo: '2026-01-01' },
      { sku: 'S9', cost: 1, currency: 'USD', effectiveFrom: '2026-02-30', supplier: 'x' },
    ]);
    expect(await importCostsFile('px_sku_bad', bad, { onRejection: (rejection) => rejections.push(rejection) })).toEqual({ lines: 0, skus: 0, rejected: 4 });
    expect(rejections).toEqual([
      { location: 'line 2', problems: [{ path: 'cost', message: expect.any(String) }] },
      { location: 'line 3', problems: [{ path: '', message: 'Not valid JSON' }] },
      { location: 'line 4', problems: [{ path: 'effectiveTo', message: 'effectiveTo must not be before effectiveFrom' }] },
      { location: 'line 5', problems: expect.arrayContaining([{ path: 'effectiveFrom', message: expect.stringContaining('YYYY-MM-DD') }, { path: 'supplier', message: expect.stringContaining('supplier') }]) },
    ]);
    expect(await loadSkuCosts('px_sku_bad')).toEqual([]);
  });
});
