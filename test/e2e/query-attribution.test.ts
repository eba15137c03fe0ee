import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, mintKey, pipelineDrained, runCli, startLocalServer, type RunningServer } from '../support/local-server';

const PIXEL = 'px_attribution_e2e';
const PATH = '/db-mgmt/api/query-attribution';
let server: RunningServer;
let headers: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'attribution-e2e-'));

const GOOGLE_AD = 'https://shop.example/?utm_source=google&utm_medium=cpc&utm_campaign=brand&campaign_id=g-c1&adset_id=g-s1&ad_id=g-a1&gclid=abc';
const TIKTOK_AD = 'https://shop.example/?utm_source=tiktok&utm_medium=paid&campaign_id=t-c1&adset_id=t-s1&ad_id=t-a1&ttclid=xyz';

beforeAll(async () => {
  server = await startLocalServer();
  const orders = join(dir, 'orders.ndjson');
  writeFileSync(
    orders,
    [
      { orderId: 'E-1', orderDate: '2026-03-05T10:00:00Z', value: 80, currency: 'USD', customer: { emails: ['eve@example.org'] } },
      { orderId: 'E-2', orderDate: '2026-03-06T10:00:00Z', value: 20, currency: 'USD' },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
  );
  expect((await runCli(server, 'bin/import-orders.ts', '--pixel', PIXEL, '--file', orders)).code).toBe(0);
  const ads = join(dir, 'ads.json');
  const ad = (platform: string, id: string, spend: number) => ({
    platform, accountId: `${platform}-acc`, accountName: 'Main', campaignId: `${id}-c1`, campaignName: 'C', adsetId: `${id}-s1`, adsetName: 'S', adId: `${id}-a1`, adName: 'A',
    status: 'ACTIVE', configuredStatus: 'ACTIVE', effectiveStatus: 'ACTIVE', currency: 'USD', dailyBudget: null, budgetRemaining: null, amountSpent: null,
    createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-03-01T00:00:00Z',
    hourly: [{ hour: '2026-03-03T10:00:00Z', spend, impressions: 100, clicks: 5, conversions: 0, conversionValue: 0 }],
  });
  writeFileSync(ads, JSON.stringify({ fxRates: [{ date: '2026-01-01', rates: { USD: 1 } }], ads: [ad('google', 'g', 40), ad('tiktok', 't', 10)] }));
  expect((await runCli(server, 'bin/import-ads.ts', '--pixel', PIXEL, '--file', ads)).code).toBe(0);

  const writer = await mintKey(server, PIXEL, 'events:write');
  const sent = await call(server, 'POST', '/tr/api/events', {
    headers: { 'x-api-key': writer.apiKey, 'x-pixel-id': PIXEL },
    body: {
      events: [
        { name: 'page_view', eventId: 'e2e-1', timestamp: '2026-03-01T09:00:00Z', user: { anonymousId: 'br-1' }, page: { url: TIKTOK_AD } },
        { name: 'page_view', eventId: 'e2e-2', timestamp: '2026-03-04T09:00:00Z', user: { anonymousId: 'br-1' }, page: { url: GOOGLE_AD } },
        { name: 'purchase', eventId: 'e2e-3', timestamp: '2026-03-05T10:00:00Z', user: { anonymousId: 'br-1', emails: ['EVE@example.org'] }, data: { orderId: 'E-1' } },
      ],
    },
  });
  expect(sent.status).toBe(200);
  await pipelineDrained(server);
  const key = await mintKey(server, PIXEL, 'analytics:read');
  headers = { 'x-api-key': key.apiKey, 'x-pixel-id': PIXEL };
});
afterAll(async () => {
  await server?.stop();
});

describe('POST /db-mgmt/api/query-attribution through the local server', () => {
  it('credits orders from the import CLI to journeys from the events API, and joins the imported spend', async () => {
    const response = await call(server, 'POST', PATH, {
      headers,
      body: {
        pixelId: PIXEL,
        dateRange: { start: '2026-03-01', end: '2026-03-07' },
        dimension: 'source',
        attributionModel: ['first_click', 'last_click', 'position_based'],
        measures: ['attribution.orders', 'attribution.revenue', 'channel.spend', 'attribution.roas', 'attribution.cpa'],
      },
    });
    expect(response.status).toBe(200);
    const table = (index: number) =>
      Object.fromEntries(
        response.body.results[index].data.primary.map((point: Record<string, unknown>) => [
          String(point.source),
          [point['attribution.revenue'], point['channel.spend'], point['attribution.roas'], point['attribution.cpa']],
        ]),
      );
    expect(response.body.results.map((result: { attributionModel: string }) => result.attributionModel)).toEqual(['first_click', 'last_click', 'position_based']);
    expect(table(0)).toEqual({ null: [20, 0, null, 0], google: [0, 40, 0, null], tiktok: [80, 10, 8, 10] });
    expect(table(1)).toEqual({ null: [20, 0, null, 0], google: [80, 40, 2, 40], tiktok: [0, 10, 0, null] });
    expect(table(2)).toEqual({ null: [20, 0, null, 0], google: [40, 40, 1, 80], tiktok: [40, 10, 4, 20] });
  });

  it('rejects a window outside the fixed set with 400', async () => {
    const response = await call(server, 'POST', PATH, { headers, body: { pixelId: PIXEL, dateRange: { start: '2026-03-01', end: '2026-03-07' }, attributionWindow: 45 } });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].path).toEqual(['attributionWindow']);
  });
});
