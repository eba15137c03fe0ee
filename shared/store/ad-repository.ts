import type { Ad, AdImport, Platform } from '../schemas/ad-import';
import { batchGet } from './batch-get';
import { batchWrite, type WriteRequest } from './batch-write';
import { bumpCollectionVersion, readCollectionVersion } from './collection-version';
import { tableName } from './dynamo-client';
import { queryAll } from './query-all';
import { decodeMonth, encodeMonth, monthKeyOf, monthStartOf, type HourlyMetrics } from './hourly-metrics-codec';
import { mergeItems } from './merge-items';
import { VersionedCache } from './versioned-cache';

export type { HourlyMetrics } from './hourly-metrics-codec';

/**
 * The ads of a pixel and their hourly metrics.
 *
 * Items (see table-design.ts):
 * - directory head  `PK=PIXEL#<pixelId>#ADS`  `SK=DIRECTORY`          { version }
 * - ad metadata     `PK=PIXEL#<pixelId>#ADS`  `SK=AD#<platform>#<adId>` { ad: JSON of Ad }
 * - monthly metrics `PK=PIXEL#<pixelId>#AD#<platform>#<adId>`  `SK=M#<YYYY-MM>` { data: Binary }
 *
 * The metadata is JSON text rather than DynamoDB attributes because it is only ever read whole,
 * and text keeps every float64 exact with no DynamoDB number range limits (1e-130..1e126).
 * Pixel ids cannot contain `#` and platforms are fixed words, so an adId containing `#` still
 * gives unambiguous keys.
 *
 * No transactions (dynalite has none): an upsert writes metrics, then metadata, then bumps the
 * directory version. A crash part-way leaves some ads and hours written and the version unbumped;
 * running the same import again completes it, since every step is an idempotent overwrite.
 *
 * A month item is read, merged with the given hours and written back conditionally on the
 * revision it was read at (merge-items.ts): two imports of the same ad and month, running at the
 * same time, end with the union of their hours, the one that wrote last winning an hour both gave.
 */
export interface AdKey {
  platform: Platform;
  adId: string;
}

export function adKeyString(ad: AdKey): string {
  return `${ad.platform}#${ad.adId}`;
}

const adsPk = (pixelId: string) => `PIXEL#${pixelId}#ADS`;
const AD_SK_PREFIX = 'AD#';
const adSk = (ad: AdKey) => `${AD_SK_PREFIX}${ad.platform}#${ad.adId}`;
const metricsPk = (pixelId: string, ad: AdKey) => `PIXEL#${pixelId}#AD#${ad.platform}#${ad.adId}`;
const MONTH_SK_PREFIX = 'M#';

/** Parallel batch calls during an upsert: enough to overlap round trips, few enough not to throttle. */
const WRITE_CONCURRENCY = 4;
/** Parallel conditional writes of month items (one item each, where a batch call holds 25). */
const MONTH_WRITE_CONCURRENCY = 16;

/**
 * Stores ads: each ad's metadata is replaced; its given hours replace those hours and every other
 * stored hour stays. An ad listed twice in one call counts as imported twice, in order.
 * Bumps the pixel's directory version once, last.
 */
export async function upsertAds(pixelId: string, ads: readonly AdImport[]): Promise<void> {
  if (ads.length === 0) return;
  const byAd = new Map<string, { metadata: Ad; hoursByMonth: Map<string, Map<number, HourlyMetrics>> }>();
  for (const { hourly, ...metadata } of ads) {
    const entry = byAd.get(adKeyString(metadata)) ?? { metadata, hoursByMonth: new Map() };
    entry.metadata = metadata;
    for (const row of hourly ?? []) {
      const month = monthKeyOf(row.hour);
      let hours = entry.hoursByMonth.get(month);
      if (!hours) entry.hoursByMonth.set(month, (hours = new Map()));
      hours.set(row.hour, row);
    }
    byAd.set(adKeyString(metadata), entry);
  }

  await mergeItems(
    [...byAd.values()].flatMap(({ metadata, hoursByMonth }) =>
      [...hoursByMonth].map(([month, hours]) => ({
        key: { PK: metricsPk(pixelId, metadata), SK: MONTH_SK_PREFIX + month },
        merge: (stored: Record<string, unknown> | undefined) => {
          const merged = stored ? mergeHours(decodeMonth(month, stored.data as Uint8Array), hours) : [...hours.values()];
          return { data: encodeMonth(month, merged), hourCount: merged.length };
        },
      })),
    ),
    { concurrency: MONTH_WRITE_CONCURRENCY },
  );

  const importedAt = new Date();
  const metadataPuts: WriteRequest[] = [...byAd.values()].map(({ metadata }) => ({
    PutRequest: {
      Item: {
        PK: adsPk(pixelId),
        SK: adSk(metadata),
        platform: metadata.platform,
        adId: metadata.adId,
        ad: JSON.stringify(metadata),
        importedAt: importedAt.toISOString(),
      },
    },
  }));
  await batchWrite(metadataPuts, { concurrency: WRITE_CONCURRENCY });
  await bumpCollectionVersion(adsPk(pixelId), importedAt);
}

function mergeHours(stored: readonly HourlyMetrics[], given: ReadonlyMap<number, HourlyMetrics>): HourlyMetrics[] {
  const merged = new Map(stored.map((row) => [row.hour, row]));
  for (const [hour, row] of given) merged.set(hour, row);
  return [...merged.values()];
}

/**
 * Parsed ad lists of recently asked pixels, each valid for one directory version. Bounded at 50
 * pixels and 50,000 ads in all (roughly 50 MB), least recently used first out.
 *
 * Deployed, this lives per Lambda container. It is never stale: every call first reads the
 * directory version with a strongly consistent read and uses the cached list only when it was
 * read at that same version, so an import is visible to every container on its next request.
 */
const adListCache = new VersionedCache<readonly Ad[]>({ maxEntries: 50, maxWeight: 50_000, weigh: (ads) => ads.length });

/** Every ad of the pixel, ordered by platform then adId. Frozen: the list may be shared. */
export async function listAds(pixelId: string): Promise<readonly Ad[]> {
  const cacheKey = `${tableName()}\n${pixelId}`;
  const version = await readCollectionVersion(adsPk(pixelId));
  const cached = adListCache.get(cacheKey, version);
  if (cached) return cached;

  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': adsPk(pixelId), ':prefix': AD_SK_PREFIX },
    ProjectionExpression: 'ad',
    ConsistentRead: true,
  });
  const ads = items.map((item) => Object.freeze(JSON.parse(item.ad as string) as Ad));
  const list = Object.freeze(ads);
  // Cached under the version read before the query: the list holds at least that version's
  // writes, and any later import bumps past it, so the entry can only be replaced, never wrong.
  adListCache.set(cacheKey, version, list);
  return list;
}

/** The ad's hours h with from <= h < to, in hour order: `loadHourlyMetricsForAds` for one ad. */
export async function loadHourlyMetrics(pixelId: string, ad: AdKey, from: Date, to: Date): Promise<HourlyMetrics[]> {
  return (await loadHourlyMetricsForAds(pixelId, [ad], from, to)).get(adKeyString(ad)) ?? [];
}

/**
 * The hours h with from <= h < to of many ads, in hour order, keyed by `adKeyString`. The month
 * items a range touches are known from the range alone, so they are read by key, 100 per
 * BatchGetItem call, instead of one Query per ad: a page of 500 ads over two months is 10 calls,
 * not 500. The cost follows the range and the number of ads, never an ad's history.
 */
export async function loadHourlyMetricsForAds(
  pixelId: string,
  ads: readonly AdKey[],
  from: Date,
  to: Date,
  concurrency = 4,
): Promise<Map<string, HourlyMetrics[]>> {
  const fromMs = from.getTime();
  const toMs = to.getTime();
  if (Number.isNaN(fromMs) || Number.isNaN(toMs)) throw new RangeError('loadHourlyMetricsForAds needs valid dates');
  const byAd = new Map<string, HourlyMetrics[]>(ads.map((ad) => [adKeyString(ad), []]));
  if (fromMs >= toMs || ads.length === 0) return byAd;

  const months: string[] = [];
  for (let month = monthKeyOf(fromMs); month <= monthKeyOf(toMs - 1); month = monthKeyOf(monthStartOf(month) + 32 * 86_400_000)) {
    months.push(month);
  }
  const adByPk = new Map(ads.map((ad) => [metricsPk(pixelId, ad), adKeyString(ad)]));
  const keys = ads.flatMap((ad) => months.map((month) => ({ PK: metricsPk(pixelId, ad), SK: MONTH_SK_PREFIX + month })));
  const items = await batchGet(keys, { concurrency });
  // BatchGetItem returns items in no particular order: months are decoded in calendar order so
  // each ad's hours come out sorted.
  items.sort((a, b) => ((a.SK as string) < (b.SK as string) ? -1 : (a.SK as string) > (b.SK as string) ? 1 : 0));
  for (const item of items) {
    const rows = byAd.get(adByPk.get(item.PK as string) as string) as HourlyMetrics[];
    for (const row of decodeMonth((item.SK as string).slice(MONTH_SK_PREFIX.length), item.data as Uint8Array)) {
      if (row.hour >= fromMs && row.hour < toMs) rows.push(row);
    }
  }
  return byAd;
}
