import type { Ad, AdImport, Platform } from '../schemas/ad-import';
import { batchGet } from './batch-get';
import { batchWrite, type WriteRequest } from './batch-write';
import { bumpCollectionVersion } from './collection-version';
import { tableName } from './dynamo-client';
import { queryAll } from './query-all';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { loadAccount } from './account-repository';
import { decodeCells, encodeCells, rollupMonth } from './daily-rollup-codec';
import { documentClient } from './dynamo-client';
import { decodeMonth, encodeMonth, monthKeyOf, monthStartOf, type HourlyMetrics } from './hourly-metrics-codec';
import { mapWithConcurrency } from '../map-with-concurrency';
import { canonicalTimeZone } from '../time/zoned-time';
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
const ROLLUP_SK_PREFIX = 'R#';
const DIRECTORY_SK = 'DIRECTORY';

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
  const [directory, reportingZone] = await Promise.all([readDirectoryHead(pixelId), reportingZoneOf(pixelId)]);
  const byAd = new Map<string, { metadata: Ad; hoursByMonth: Map<string, Map<number, HourlyMetrics>> }>();
  for (const { hourly, ...metadata } of ads) {
    const entry = byAd.get(adKeyString(metadata)) ?? { metadata, hoursByMonth: new Map() };
    entry.metadata = metadata;
    for (const row of hourly ?? []) {
      const month = monthOfHour(row.hour);
      let hours = entry.hoursByMonth.get(month);
      if (!hours) entry.hoursByMonth.set(month, (hours = new Map()));
      hours.set(row.hour, row);
    }
    byAd.set(adKeyString(metadata), entry);
  }

  // The hours each month item was last merged to: what its rollup is computed from once the
  // merge has committed (a merge retried after a lost race is recomputed, so the last one wins).
  const mergedHours = new Map<string, HourlyMetrics[]>();
  const committed = await mergeItems(
    [...byAd.values()].flatMap(({ metadata, hoursByMonth }) =>
      [...hoursByMonth].map(([month, hours]) => ({
        key: { PK: metricsPk(pixelId, metadata), SK: MONTH_SK_PREFIX + month },
        merge: (stored: Record<string, unknown> | undefined) => {
          const merged = stored ? mergeHours(decodeMonth(month, stored.data as Uint8Array), hours) : [...hours.values()].sort((a, b) => a.hour - b.hour);
          mergedHours.set(`${metricsPk(pixelId, metadata)}\n${month}`, merged);
          return { data: encodeMonth(month, merged), hourCount: merged.length };
        },
      })),
    ),
    { concurrency: MONTH_WRITE_CONCURRENCY },
  );
  await mapWithConcurrency(committed, MONTH_WRITE_CONCURRENCY, async ({ key, rev }) => {
    const month = key.SK.slice(MONTH_SK_PREFIX.length);
    await putRollup(key.PK, month, mergedHours.get(`${key.PK}\n${month}`) as HourlyMetrics[], rev, reportingZone);
  });

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
  // A pixel's first import starts it with rollups for everything; an older pixel's hours may
  // predate rollups, so its flag waits for rebuildRollups.
  await bumpCollectionVersion(adsPk(pixelId), importedAt, directory.version === 0 ? { rollups: true } : {});
}

/** `monthKeyOf` for many hours: formatting a date per hour was a large share of an import's CPU. */
const monthByDay = new Map<number, string>();
function monthOfHour(hour: number): string {
  const day = Math.floor(hour / 86_400_000);
  let month = monthByDay.get(day);
  if (month === undefined) {
    month = monthKeyOf(hour);
    if (monthByDay.size >= 100_000) monthByDay.clear();
    monthByDay.set(day, month);
  }
  return month;
}

function mergeHours(stored: readonly HourlyMetrics[], given: ReadonlyMap<number, HourlyMetrics>): HourlyMetrics[] {
  const merged = new Map(stored.map((row) => [row.hour, row]));
  for (const [hour, row] of given) merged.set(hour, row);
  return [...merged.values()].sort((a, b) => a.hour - b.hour);
}

/**
 * Writes the rollup of a month item at revision `rev`, unless one from a later revision is there
 * already (then that one is the right one and this is dropped).
 */
async function putRollup(metricsPartition: string, month: string, hours: readonly HourlyMetrics[], rev: number, reportingZone: string): Promise<void> {
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          PK: metricsPartition,
          SK: ROLLUP_SK_PREFIX + month,
          src: rev,
          u: encodeCells(month, rollupMonth(month, hours, 'UTC')),
          ...(reportingZone === 'UTC' ? {} : { tz: reportingZone, z: encodeCells(month, rollupMonth(month, hours, reportingZone)) }),
        },
        ConditionExpression: 'attribute_not_exists(PK) OR #src <= :rev',
        ExpressionAttributeNames: { '#src': 'src' },
        ExpressionAttributeValues: { ':rev': rev },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * Recomputes every rollup of a pixel from its hours, in the account's current reporting zone,
 * then sets the directory's `rollups` flag: for data stored before rollups existed, and after the
 * reporting zone changed (until then, reads in the new zone use the hours: a rollup item names
 * the zone it was computed in, and a reader never takes another zone's days). Safe to run at any
 * time, also during imports: each month is read with its revision and written conditionally.
 */
export async function rebuildRollups(pixelId: string): Promise<{ ads: number; months: number }> {
  const reportingZone = await reportingZoneOf(pixelId);
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': adsPk(pixelId), ':prefix': AD_SK_PREFIX },
    ProjectionExpression: '#platform, adId',
    ExpressionAttributeNames: { '#platform': 'platform' },
    ConsistentRead: true,
  });
  let months = 0;
  await mapWithConcurrency(items, WRITE_CONCURRENCY, async (item) => {
    const partition = metricsPk(pixelId, { platform: item.platform as Platform, adId: item.adId as string });
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await documentClient.send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
          ExpressionAttributeValues: { ':pk': partition, ':prefix': MONTH_SK_PREFIX },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const month of page.Items ?? []) {
        const key = (month.SK as string).slice(MONTH_SK_PREFIX.length);
        await putRollup(partition, key, decodeMonth(key, month.data as Uint8Array), (month.rev as number | undefined) ?? 0, reportingZone);
        months++;
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  });
  await bumpCollectionVersion(adsPk(pixelId), new Date(), { rollups: true });
  return { ads: items.length, months };
}

/** The account's reporting zone by its canonical name, the one requests carry. */
async function reportingZoneOf(pixelId: string): Promise<string> {
  return canonicalTimeZone((await loadAccount(pixelId))?.account.timezone ?? 'UTC') ?? 'UTC';
}

interface DirectoryHead {
  version: number;
  rollups: boolean;
}

async function readDirectoryHead(pixelId: string): Promise<DirectoryHead> {
  const { Item } = await documentClient.send(
    new GetCommand({
      TableName: tableName(),
      Key: { PK: adsPk(pixelId), SK: DIRECTORY_SK },
      ConsistentRead: true,
      ProjectionExpression: '#version, #rollups',
      ExpressionAttributeNames: { '#version': 'version', '#rollups': 'rollups' },
    }),
  );
  return { version: (Item?.version as number | undefined) ?? 0, rollups: Item?.rollups === true };
}

/**
 * Parsed ad lists of recently asked pixels, each valid for one directory version. Bounded at 50
 * pixels and 50,000 ads in all (roughly 50 MB), least recently used first out.
 *
 * Deployed, this lives per Lambda container. It is never stale: every call first reads the
 * directory version with a strongly consistent read and uses the cached list only when it was
 * read at that same version, so an import is visible to every container on its next request.
 */
const adListCache = new VersionedCache<AdDirectory>({ maxEntries: 50, maxWeight: 50_000, weigh: (directory) => directory.ads.length });

export interface AdDirectory {
  /** Every ad of the pixel, ordered by platform then adId. Frozen: the list may be shared. */
  ads: readonly Ad[];
  /** Every month of hours has its daily rollup item (see above). */
  rollups: boolean;
}

/** Every ad of the pixel, ordered by platform then adId. Frozen: the list may be shared. */
export async function listAds(pixelId: string): Promise<readonly Ad[]> {
  return (await loadAdDirectory(pixelId)).ads;
}

/** The ads and whether their rollups can be read, as of one directory version. */
export async function loadAdDirectory(pixelId: string): Promise<AdDirectory> {
  const cacheKey = `${tableName()}\n${pixelId}`;
  const head = await readDirectoryHead(pixelId);
  const { version } = head;
  const cached = adListCache.get(cacheKey, version);
  if (cached) return cached;

  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': adsPk(pixelId), ':prefix': AD_SK_PREFIX },
    ProjectionExpression: 'ad',
    ConsistentRead: true,
  });
  const ads = items.map((item) => Object.freeze(JSON.parse(item.ad as string) as Ad));
  const directory: AdDirectory = Object.freeze({ ads: Object.freeze(ads), rollups: head.rollups });
  // Cached under the version read before the query: the list holds at least that version's
  // writes, and any later import bumps past it, so the entry can only be replaced, never wrong.
  // The rollups flag only ever turns on, and with a bump, so it is never newer than the list.
  adListCache.set(cacheKey, version, directory);
  return directory;
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

/** Which rollup a reader wants: the UTC days, or the days of the pixel's reporting zone. */
export type RollupZone = { kind: 'utc' } | { kind: 'zone'; timeZone: string };

/**
 * The rollup cells (daily-rollup-codec.ts) of the months touching [from, to) of many ads, keyed by
 * `adKeyString`, each ad's cells in day order with absolute day numbers. An ad whose months have
 * no rollup has no data there. An ad with a month whose zone rollup was computed in another zone
 * (the reporting zone changed and no rebuild ran yet) is listed in `stale`: its cells are not
 * returned and the caller reads its hours instead. Only the asked attribute is read.
 */
export async function loadRollupsForAds(
  pixelId: string,
  ads: readonly AdKey[],
  from: Date,
  to: Date,
  zone: RollupZone,
  concurrency = 4,
): Promise<{ cells: Map<string, Float64Array>; stale: Set<string> }> {
  const fromMs = from.getTime();
  const toMs = to.getTime();
  const cells = new Map<string, Float64Array>();
  const stale = new Set<string>();
  if (!(fromMs < toMs) || ads.length === 0) {
    for (const ad of ads) cells.set(adKeyString(ad), new Float64Array(0));
    return { cells, stale };
  }
  const months: string[] = [];
  for (let month = monthKeyOf(fromMs); month <= monthKeyOf(toMs - 1); month = monthKeyOf(monthStartOf(month) + 32 * 86_400_000)) {
    months.push(month);
  }
  const adByPk = new Map(ads.map((ad) => [metricsPk(pixelId, ad), adKeyString(ad)]));
  const monthBySk = new Map(months.map((month, index) => [ROLLUP_SK_PREFIX + month, index]));
  const keys = ads.flatMap((ad) => months.map((month) => ({ PK: metricsPk(pixelId, ad), SK: ROLLUP_SK_PREFIX + month })));
  // Each ad's decoded months by month index: BatchGetItem returns items in no particular order.
  const parts = new Map<string, Array<Float64Array | undefined>>();
  // Decoded as each call's items arrive, so their text dies young (batch-get.ts).
  const onItems = (items: Array<Record<string, unknown>>) => {
    for (const item of items) {
      const key = adByPk.get(item.PK as string) as string;
      if (zone.kind === 'zone' && item.tz !== zone.timeZone) {
        stale.add(key);
        continue;
      }
      const month = monthBySk.get(item.SK as string) as number;
      const decoded = decodeCells(months[month] as string, (zone.kind === 'utc' ? item.u : item.z) as string);
      let list = parts.get(key);
      if (!list) parts.set(key, (list = new Array(months.length)));
      list[month] = decoded;
    }
  };
  await batchGet(keys, { concurrency, attributes: zone.kind === 'utc' ? ['u'] : ['tz', 'z'], onItems });
  for (const ad of ads) {
    const key = adKeyString(ad);
    if (stale.has(key)) continue;
    const list = (parts.get(key) ?? []).filter((part) => part !== undefined);
    if (list.length === 1) {
      cells.set(key, list[0] as Float64Array);
      continue;
    }
    const joined = new Float64Array(list.reduce((sum, part) => sum + part.length, 0));
    let offset = 0;
    for (const part of list) {
      joined.set(part, offset);
      offset += part.length;
    }
    cells.set(key, joined);
  }
  return { cells, stale };
}
