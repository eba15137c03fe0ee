import { beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../lib/local/demo-seed';
import { findApiKeyByHash } from '../../shared/store/api-key-repository';
import { hashApiKey } from '../../shared/auth/api-key-secret';
import { listAds, loadHourlyMetrics } from '../../shared/store/ad-repository';
import { loadFxTable } from '../../shared/store/fx-repository';
import { useFreshTable } from '../support/fresh-table';
import { runQuery } from '../../shared/analytics/query-service';
import { queryRequestSchema } from '../../shared/schemas/query-measures';

beforeAll(async () => {
  await useFreshTable();
});

describe('first-start demo seed', () => {
  it('creates a demo pixel with ads, 90 days of hourly metrics up to the current hour, exchange rates, and a full-scope key', async () => {
    const now = new Date('2026-11-23T00:42:00Z');
    const demo = await seedDemo(now);

    expect(demo).toMatchObject({ pixelId: 'px_demo', ads: 60, days: 90 });
    expect((await findApiKeyByHash(hashApiKey(demo.apiKey)))?.scopes).toHaveLength(6);

    const ads = await listAds('px_demo');
    expect(ads).toHaveLength(60);
    expect(new Set(ads.map((ad) => ad.platform))).toEqual(new Set(['meta', 'google', 'tiktok']));

    const lastHour = Date.parse('2026-11-23T00:00:00Z');
    const window = [new Date(lastHour - 90 * 24 * 3_600_000), new Date(lastHour + 3_600_000)] as const;
    const hours = (await Promise.all(ads.map((ad) => loadHourlyMetrics('px_demo', ad, ...window)))).flat().map((row) => row.hour);
    expect(Math.max(...hours)).toBe(lastHour);
    expect(Math.min(...hours)).toBe(lastHour - (90 * 24 - 1) * 3_600_000);

    const fx = await loadFxTable('px_demo');
    expect(fx.latestDate()).toBe('2026-11-23');
    for (const ad of ads) expect(fx.convert(100, ad.currency, 'USD', '2026-10-01')).toBeGreaterThan(0);
  });
});

describe('first-start demo orders and events', () => {
  it('answers the README query on the demo pixel with real, consistent numbers', async () => {
    await useFreshTable();
    const now = new Date('2026-11-23T00:42:00Z');
    const started = performance.now();
    const demo = await seedDemo(now);
    // Not a time limit: printed so a slow seed shows in the test log.
    console.info(`demo seed: ${Math.round(performance.now() - started)} ms for ${demo.orders} orders and ${demo.events} events`);
    expect(demo.orders).toBeGreaterThan(1000);

    const request = queryRequestSchema.parse({
      pixelId: 'px_demo',
      measures: ['orders.orders', 'orders.total_revenue', 'orders.refunds', 'orders.new_customers', 'orders.returning_customer_orders', 'events.purchases', 'events.page_views', 'channel.spend', 'core.mer'],
      dateRange: { start: '2026-10-01', end: '2026-10-31' },
      orderSettings: { countPendingOrders: true, countVoidedOrders: true },
    });
    const [result] = (await runQuery('px_demo', request)).results;
    const totals = Object.fromEntries(result!.measureDetails.map((detail) => [detail.measure, detail.primarySum as number]));
    expect(result!.measureDetails.every((detail) => detail.success)).toBe(true);
    // Every order placed has its purchase event; refunds, returning customers and spend exist.
    expect(totals['events.purchases']).toBe(totals['orders.orders']);
    expect(totals['orders.refunds']).toBeGreaterThan(0);
    expect(totals['orders.returning_customer_orders']).toBeGreaterThan(0);
    expect(totals['orders.new_customers']).toBeGreaterThan(0);
    expect(totals['events.page_views']).toBeGreaterThan(totals['orders.orders']!);
    expect(totals['channel.spend']).toBeGreaterThan(0);
  });
});
