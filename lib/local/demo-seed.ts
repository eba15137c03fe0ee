import { SCOPES } from '../../shared/auth/scopes';
import { mintApiKey } from '../../shared/auth/api-key-service';
import type { AdImport } from '../../shared/schemas/ad-import';
import { upsertAds } from '../../shared/store/ad-repository';
import { upsertFxRates } from '../../shared/store/fx-repository';
import { DEMO_DEFAULTS, generateDemoAds, generateDemoFxRates } from './demo-ads';
import { seedDemoOrdersAndEvents } from './demo-query-seed';

export const DEMO_PIXEL_ID = 'px_demo';

/**
 * First start only: a demo pixel with demo ads (90 days of hourly metrics up to the current hour,
 * and the exchange rates for those days), 90 days of orders and the pixel events around them and a key with every scope, so a newcomer can call the
 * API at once. The ads are stored like an import would store them.
 */
export async function seedDemo(
  now: Date = new Date(),
): Promise<{ pixelId: string; apiKey: string; apiKeyPk: string; ads: number; days: number; orders: number; events: number }> {
  const options = { ...DEMO_DEFAULTS, end: now };
  await upsertFxRates(DEMO_PIXEL_ID, generateDemoFxRates(options));
  const batch: AdImport[] = [];
  for (const ad of generateDemoAds(options)) {
    batch.push(ad);
    if (batch.length === 12) await upsertAds(DEMO_PIXEL_ID, batch.splice(0));
  }
  await upsertAds(DEMO_PIXEL_ID, batch);
  const { orders, events } = await seedDemoOrdersAndEvents(DEMO_PIXEL_ID, now);

  const { apiKey, record } = await mintApiKey({ pixelId: DEMO_PIXEL_ID, scopes: [...SCOPES], name: 'Demo key' });
  return { pixelId: DEMO_PIXEL_ID, apiKey, apiKeyPk: record.apiKeyPk, ads: options.ads, days: options.days, orders, events };
}
