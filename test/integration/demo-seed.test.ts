import { beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../lib/local/demo-seed';
import { findApiKeyByHash } from '../../shared/store/api-key-repository';
import { hashApiKey } from '../../shared/auth/api-key-secret';
import { listAds, loadHourlyMetrics } from '../../shared/store/ad-repository';
import { loadFxTable } from '../../shared/store/fx-repository';
import { useFreshTable } from '../support/fresh-table';

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
