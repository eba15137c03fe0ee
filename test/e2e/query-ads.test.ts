import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, mintKey, runCli, startLocalServer, type RunningServer } from '../support/local-server';

const PIXEL = 'px_ads_e2e';
let server: RunningServer;
let headers: Record<string, string>;

const hours = (startIso: string, count: number, metrics: Record<string, number>) =>
  Array.from({ length: count }, (_, i) => ({
    hour: new Date(Date.parse(startIso) + i * 3_600_000).toISOString(),
    spend: 0,
    impressions: 0,
    clicks: 0,
    conversions: 0,
    conversionValue: 0,
    ...metrics,
  }));

const base = {
  accountId: 'act_1', accountName: 'Main', campaignId: 'c1', campaignName: 'Spring', adsetId: 's1', adsetName: 'Broad',
  status: 'ACTIVE', configuredStatus: 'ACTIVE', effectiveStatus: 'ACTIVE', createdAt: '2026-01-10T09:00:00Z', updatedAt: '2026-03-02T10:00:00Z',
};

beforeAll(async () => {
  server = await startLocalServer();
  const file = join(mkdtempSync(join(tmpdir(), 'ads-e2e-')), 'ads.json');
  writeFileSync(
    file,
    JSON.stringify({
      fxRates: [{ date: '2026-03-01', rates: { USD: 1, EUR: 0.8 } }],
      ads: [
        // 24 hours of 1 EUR spend and 100 impressions on March 1 (UTC).
        { ...base, platform: 'meta', adId: 'a1', adName: 'Video 1', currency: 'EUR', dailyBudget: 50, budgetRemaining: 20, amountSpent: 400, hourly: hours('2026-03-01T00:00:00Z', 24, { spend: 1, impressions: 100, clicks: 2 }) },
        { ...base, platform: 'tiktok', adId: 't1', adName: 'Spark 1', currency: 'USD', hourly: hours('2026-03-01T00:00:00Z', 2, { spend: 5, impressions: 10 }) },
      ],
    }),
  );
  const imported = await runCli(server, 'bin/import-ads.ts', '--pixel', PIXEL, '--file', file);
  expect(imported).toMatchObject({ code: 0 });
  expect(imported.stdout).toMatch(/Imported 2 ads, 26 hourly rows, 1 exchange-rate date into pixel px_ads_e2e/);
  const key = await mintKey(server, PIXEL, 'analytics:read');
  headers = { 'x-api-key': key.apiKey, 'x-pixel-id': PIXEL };
});
afterAll(async () => {
  await server?.stop();
});

describe('query-ads through the local server, on data imported with the CLI', () => {
  it('answers the daily series in the requested zone and currency', async () => {
    const response = await call(server, 'POST', '/db-mgmt/api/query-ads', {
      headers,
      body: {
        pixelId: PIXEL,
        measures: ['channel.spend', 'channel.ctr'],
        dateRange: { start: '2026-02-28', end: '2026-03-01' },
        timezone: 'Asia/Tokyo',
        filters: { field: 'channel.resource_source', op: 'equals', value: 'metaIntegration' },
      },
    });

    expect(response.status).toBe(200);
    // Tokyo is UTC+9: March 1 UTC splits into 15 hours of Tokyo's March 1 and 9 of March 2,
    // and only the first is in range. 15 EUR at 0.8 per USD = 18.75 USD.
    expect(response.body).toEqual({
      rows: [
        {
          basicDetails: expect.objectContaining({ adId: 'a1', resourceSource: 'metaIntegration', currency: 'USD', nativeCurrency: 'EUR', dailyBudget: 62.5 }),
          data: {
            primary: [
              { dt: '2026-03-01', start: '2026-03-01T00:00:00.000+09:00', end: '2026-03-01T23:59:59.999+09:00', 'channel.spend': 18.75, 'channel.ctr': 2 },
            ],
          },
        },
      ],
      pagination: { limit: 50, offset: 0, total: 1, hasMore: false },
    });
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('refuses a key without analytics:read and a body for another pixel', async () => {
    const writer = await mintKey(server, PIXEL, 'account:write');
    const forbidden = await call(server, 'POST', '/db-mgmt/api/query-ads', { headers: { ...headers, 'x-api-key': writer.apiKey }, body: { pixelId: PIXEL } });
    expect(forbidden.status).toBe(403);
    const otherPixel = await call(server, 'POST', '/db-mgmt/api/query-ads', { headers, body: { pixelId: 'px_other' } });
    expect(otherPixel).toMatchObject({ status: 403, body: { message: 'Body pixelId does not match the x-pixel-id header' } });
  });

  it('answers 400 with every field problem listed at once', async () => {
    const response = await call(server, 'POST', '/db-mgmt/api/query-ads', {
      headers,
      body: { pixelId: PIXEL, measures: ['orders.total_revenue'], limit: 1000, filters: { field: 'events.name', op: 'equals', value: 'x' } },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors.map((issue: { path: string[] }) => issue.path.join('.')).sort()).toEqual(['filters.field', 'limit', 'measures']);
  });
});
