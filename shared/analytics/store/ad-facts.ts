import { createHash, randomUUID } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { RangeCalendar } from '../../ads/ad-series';
import type { Ad, AdImport } from '../../schemas/ad-import';
import { VersionedCache } from '../../store/versioned-cache';
import { tableName } from '../../store/dynamo-client';
import type { InstantRange } from '../../time/date-range';
import { newEventId } from '../../tracking/event-id';
import { sqlString, withDuckDB } from './duckdb';
import { fxRateRow, FX_RATES_LAYOUT } from './fx-rates';
import { ALL_DATES, liveTableFiles, selectFrom, utcDateOf, versionOf, type LiveFile } from './table-files';
import { TableImport } from './table-import';
import { ADS_TABLE, AD_HOURS_TABLE, FX_RATES_TABLE } from './tables';
import type { FxRatesEntry } from '../../schemas/ad-import';

/** One hour of one ad's metrics, as imported. */
export interface HourlyMetrics {
  /** Epoch milliseconds of the start of the UTC hour. */
  hour: number;
  spend: number;
  impressions: number;
  clicks: number;
  conversions: number;
  conversionValue: number;
}

/** An ad's identity in maps: `<platform>#<adId>` (pixel ids and platforms hold no `#`). */
export const adKeyString = (ad: Pick<Ad, 'platform' | 'adId'>): string => `${ad.platform}#${ad.adId}`;

/** The `ad_key` column: the first 8 bytes of SHA-256 of `<platform>\n<adId>`, as a signed 64-bit integer. */
export function adKeyOf(ad: Pick<Ad, 'platform' | 'adId'>): bigint {
  return createHash('sha256').update(`${ad.platform}\n${ad.adId}`).digest().readBigInt64BE(0);
}

/*
 * The read rules of the ad tables, written once: for each key, the row of the latest import
 * (the greatest import_id) is live. Re-importing an ad replaces its metadata and the hours it
 * gives; its other hours stay, and two imports of one ad keep the union of their hours.
 */
export const LIVE_ADS_SQL = (rows: string) => `SELECT * FROM (${rows}) QUALIFY row_number() OVER (PARTITION BY platform, ad_id ORDER BY import_id DESC) = 1`;
export const LIVE_AD_HOURS_SQL = (rows: string) => `SELECT * FROM (${rows}) QUALIFY row_number() OVER (PARTITION BY platform, ad_id, hour ORDER BY import_id DESC) = 1`;

const AD_HOURS_LAYOUT = { key: ['platform', 'ad_id', 'hour'], sortBy: ['ad_key', 'hour'] } as const;
const ADS_LAYOUT = { key: ['platform', 'ad_id'], sortBy: ['platform', 'ad_id'] } as const;

/**
 * One import of ads, their hours and exchange rates (`npm run import-ads`, the demo data, the
 * benchmark): rows are staged as they come, in constant memory, and `finish` stores one file per
 * UTC date of each table, all under the import's id (table-import.ts). Within the import, an ad
 * given twice counts as imported twice, in order: its later metadata and hours win.
 */
export class AdFactsImport {
  readonly importId: string;
  private readonly hours: TableImport;
  private readonly ads: TableImport;
  private readonly rates: TableImport;

  constructor(pixelId: string, now: Date = new Date(), options: { chunkRows?: number } = {}) {
    this.importId = newEventId(now);
    this.hours = new TableImport(AD_HOURS_TABLE, pixelId, this.importId, now, AD_HOURS_LAYOUT, options.chunkRows);
    this.ads = new TableImport(ADS_TABLE, pixelId, this.importId, now, ADS_LAYOUT);
    this.rates = new TableImport(FX_RATES_TABLE, pixelId, this.importId, now, FX_RATES_LAYOUT);
  }

  async addAd({ hourly, ...ad }: AdImport): Promise<void> {
    const adKey = adKeyOf(ad);
    await this.ads.add(adRow(ad, adKey));
    for (const hour of hourly ?? []) {
      await this.hours.add([ad.platform, ad.adId, adKey, hour.hour, hour.spend, BigInt(hour.impressions), BigInt(hour.clicks), BigInt(hour.conversions), hour.conversionValue]);
    }
  }

  async addFxRates(entries: readonly FxRatesEntry[]): Promise<void> {
    for (const entry of entries) {
      for (const [currency, rate] of Object.entries(entry.rates)) {
        await this.rates.add(fxRateRow(entry.date, currency, rate));
      }
    }
  }

  /** Stores what was added: rates, then hours, then the ads, so a listed ad has its hours. */
  async finish(): Promise<void> {
    try {
      await this.rates.finish();
      await this.hours.finish();
      await this.ads.finish();
    } finally {
      await Promise.all([this.rates.discard(), this.hours.discard(), this.ads.discard()]);
    }
  }

  async discard(): Promise<void> {
    await Promise.all([this.rates.discard(), this.hours.discard(), this.ads.discard()]);
  }
}

/** An ad as a row of the ads table (as TableImport stages it: without the import's own columns). */
function adRow(ad: Ad, adKey: bigint): unknown[] {
  const row: Record<Exclude<(typeof ADS_TABLE.columns)[number]['name'], 'imported_at' | 'import_id'>, unknown> = {
    platform: ad.platform,
    ad_id: ad.adId,
    ad_key: adKey,
    account_id: ad.accountId,
    account_name: ad.accountName,
    campaign_id: ad.campaignId,
    campaign_name: ad.campaignName,
    adset_id: ad.adsetId,
    adset_name: ad.adsetName,
    ad_name: ad.adName,
    status: ad.status,
    configured_status: ad.configuredStatus,
    effective_status: ad.effectiveStatus,
    currency: ad.currency,
    daily_budget: ad.dailyBudget ?? null,
    budget_remaining: ad.budgetRemaining ?? null,
    amount_spent: ad.amountSpent ?? null,
    created_at: ad.createdAt,
    updated_at: ad.updatedAt,
  };
  return Object.values(row);
}

/**
 * Parsed ad lists of recently asked pixels, each valid for one set of live files (files never
 * change, so the set is the version). Bounded at 50 pixels and 50,000 ads in all (roughly 50 MB),
 * least recently used first out. Never stale: every call lists the live files first.
 */
const adListCache = new VersionedCache<readonly Ad[]>({ maxEntries: 50, maxWeight: 50_000, weigh: (ads) => ads.length });

/** Every ad of the pixel under the read rule, ordered by platform then adId. Frozen: the list may be shared. */
export async function readAds(pixelId: string): Promise<readonly Ad[]> {
  const files = await liveTableFiles(ADS_TABLE, pixelId, ALL_DATES);
  const cacheKey = `${tableName()}\n${pixelId}`;
  const version = versionOf(files);
  const cached = adListCache.get(cacheKey, version);
  if (cached) return cached;
  const rows = await withDuckDB(async (connection) =>
    (await connection.runAndReadAll(`${LIVE_ADS_SQL(selectFrom(ADS_TABLE, files))} ORDER BY platform, ad_id`)).getRowObjectsJS(),
  );
  const ads = Object.freeze(
    rows.map((row) =>
      Object.freeze({
        platform: row.platform,
        accountId: row.account_id,
        accountName: row.account_name,
        campaignId: row.campaign_id,
        campaignName: row.campaign_name,
        adsetId: row.adset_id,
        adsetName: row.adset_name,
        adId: row.ad_id,
        adName: row.ad_name,
        status: row.status,
        configuredStatus: row.configured_status,
        effectiveStatus: row.effective_status,
        currency: row.currency,
        dailyBudget: row.daily_budget,
        budgetRemaining: row.budget_remaining,
        amountSpent: row.amount_spent,
        createdAt: row.created_at,
        updatedAt: row.updated_at,
      } as Ad),
    ),
  );
  adListCache.set(cacheKey, version, ads);
  return ads;
}

/** Whether each file holds rows of one import only (from its Parquet statistics), by object key; files never change. */
const singleImportByKey = new Map<string, boolean>();
const MAX_KNOWN_FILES = 100_000;

async function singleImportFiles(connection: DuckDBConnection, files: readonly LiveFile[]): Promise<void> {
  const unknown = files.filter((file) => !singleImportByKey.has(file.key));
  if (unknown.length === 0) return;
  const result = await connection.runAndReadAll(
    `SELECT file_name, min(stats_min_value) AS low, max(stats_max_value) AS high, count(*) FILTER (WHERE stats_min_value IS NULL) AS unstated
     FROM parquet_metadata([${unknown.map((file) => sqlString(file.path)).join(', ')}]) WHERE path_in_schema = 'import_id' GROUP BY file_name`,
  );
  const byPath = new Map(result.getRowObjectsJS().map((row) => [row.file_name as string, row.low !== null && row.low === row.high && Number(row.unstated) === 0]));
  if (singleImportByKey.size + unknown.length > MAX_KNOWN_FILES) singleImportByKey.clear();
  for (const file of unknown) singleImportByKey.set(file.key, byPath.get(file.path) ?? false);
}

/**
 * The live hours of `ads` whose start is in `range` (the columns `rows` names), as SQL over the
 * dates' files. A date whose rows are all in one file of one import needs no rule (a file never
 * holds a key twice); the others get `LIVE_AD_HOURS_SQL`. Filtering first by ad and hour keeps
 * or drops whole keys, so the rule picks the same rows it would from everything.
 */
async function liveHoursSql(connection: DuckDBConnection, pixelId: string, ads: readonly Ad[], pageTable: string, range: InstantRange): Promise<string | undefined> {
  const files = await liveTableFiles(AD_HOURS_TABLE, pixelId, { from: utcDateOf(range.start), to: utcDateOf(range.end - 1) });
  if (files.length === 0) return undefined;
  await singleImportFiles(connection, files);
  const filesByDate = new Map<string, LiveFile[]>();
  for (const file of files) filesByDate.set(file.date, [...(filesByDate.get(file.date) ?? []), file]);
  const clean: LiveFile[] = [];
  const mixed: LiveFile[] = [];
  for (const dateFiles of filesByDate.values()) {
    if (dateFiles.length === 1 && singleImportByKey.get((dateFiles[0] as LiveFile).key)) clean.push(...dateFiles);
    else mixed.push(...dateFiles);
  }
  // A page's few hundred ads filter best as a list (checked against each row group's bounds first);
  // a longer list is a semi-join.
  const keyFilter = ads.length <= 1_000 ? `ad_key IN (${[...new Set(ads.map((ad) => adKeyOf(ad).toString()))].join(', ')})` : `ad_key IN (SELECT ad_key FROM ${pageTable})`;
  const where = `WHERE ${keyFilter} AND hour >= make_timestamp(${range.start * 1000}) AND hour < make_timestamp(${range.end * 1000})`;
  const parts = [
    ...(clean.length > 0 ? [`SELECT * FROM (${selectFrom(AD_HOURS_TABLE, clean)}) ${where}`] : []),
    ...(mixed.length > 0 ? [LIVE_AD_HOURS_SQL(`SELECT * FROM (${selectFrom(AD_HOURS_TABLE, mixed)}) ${where}`)] : []),
  ];
  return parts.join(' UNION ALL ');
}

/** Runs `work` with `ads` in a temporary table of the connection (ord = index in `ads`), dropped afterwards. */
async function withPageTable<T>(connection: DuckDBConnection, ads: readonly Ad[], work: (table: string) => Promise<T>): Promise<T> {
  const { DuckDBDataChunkWriter, JSToDuckDBValueConverter } = await import('@duckdb/node-api');
  const table = `page_ads_${randomUUID().replaceAll('-', '')}`;
  await connection.run(`CREATE TEMP TABLE ${table} (ord INTEGER, platform VARCHAR, ad_id VARCHAR, ad_key BIGINT)`);
  try {
    const appender = await connection.createAppender(table);
    const writer = DuckDBDataChunkWriter.forAppender(appender, { converter: JSToDuckDBValueConverter });
    ads.forEach((ad, ord) => writer.appendRow([ord, ad.platform, ad.adId, adKeyOf(ad)]));
    writer.flush();
    appender.closeSync();
    return await work(table);
  } finally {
    await connection.run(`DROP TABLE IF EXISTS ${table}`);
  }
}

/** Reads every row of a result chunk by chunk, for results too large to turn into objects. */
async function forEachChunk(connection: DuckDBConnection, sql: string, onChunk: (columns: Array<{ getItem(index: number): unknown }>, rows: number) => void): Promise<void> {
  const result = await connection.run(sql);
  for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const columns = Array.from({ length: chunk.columnCount }, (_, index) => chunk.getColumnVector(index) as { getItem(index: number): unknown });
    onChunk(columns, chunk.rowCount);
  }
}

const CELL_WIDTH = 7;

/**
 * Each ad's cells over a calendar (ad-series.ts: one per local day of the calendar and UTC date
 * with hours, `[day index, UTC day number, spend, impressions, clicks, conversions, conversion
 * value]`, in day then UTC-date order), keyed by `adKeyString`, from the live hours.
 *
 * Which local day an hour counts in is the calendar's (Node's time-zone data, which also writes
 * the days' labels), handed to SQL as the day index of every hour of the range, rather than
 * recomputed with DuckDB's own zone data: the two could disagree on a zone whose rules changed.
 */
export async function readAdCells(pixelId: string, ads: readonly Ad[], calendar: RangeCalendar): Promise<Map<string, Float64Array>> {
  const cells = new Map<string, Float64Array>(ads.map((ad) => [adKeyString(ad), new Float64Array(0)]));
  const { range, days } = calendar;
  const HOUR = 3_600_000;
  const firstHour = Math.ceil(range.start / HOUR) * HOUR;
  const hourCount = Math.ceil((range.end - firstHour) / HOUR);
  if (ads.length === 0 || hourCount <= 0 || days.length === 0) return cells;
  const dayOfHour: number[] = new Array(hourCount);
  for (let i = 0, day = 0; i < hourCount; i++) {
    const at = firstHour + i * HOUR;
    while (day < days.length && (days[day] as { end: number }).end <= at) day++;
    dayOfHour[i] = day;
  }
  const rows: number[] = [];
  const ords: number[] = [];
  await withDuckDB((connection) =>
    withPageTable(connection, ads, async (page) => {
      const hours = await liveHoursSql(connection, pixelId, ads, page, { start: firstHour, end: range.end });
      if (!hours) return;
      await forEachChunk(
        connection,
        `SELECT p.ord,
                list_extract([${dayOfHour.join(',')}], ((epoch_ms(h.hour) - ${firstHour}) // ${HOUR})::INTEGER + 1) AS day,
                (epoch_ms(h.hour) // 86400000)::INTEGER AS utc_day,
                sum(h.spend) AS spend, sum(h.impressions)::DOUBLE AS impressions, sum(h.clicks)::DOUBLE AS clicks,
                sum(h.conversions)::DOUBLE AS conversions, sum(h.conversion_value) AS conversion_value
         FROM (${hours}) AS h JOIN ${page} AS p ON p.ad_key = h.ad_key AND p.platform = h.platform AND p.ad_id = h.ad_id
         GROUP BY ALL ORDER BY 1, 2, 3`,
        (columns, count) => {
          for (let i = 0; i < count; i++) {
            ords.push(columns[0]!.getItem(i) as number);
            for (let c = 1; c <= CELL_WIDTH; c++) rows.push(columns[c]!.getItem(i) as number);
          }
        },
      );
    }),
  );
  const all = Float64Array.from(rows);
  let start = 0;
  while (start < ords.length) {
    let end = start;
    while (end < ords.length && ords[end] === ords[start]) end++;
    cells.set(adKeyString(ads[ords[start] as number] as Ad), all.subarray(start * CELL_WIDTH, end * CELL_WIDTH));
    start = end;
  }
  return cells;
}

/** The live hours h with range.start <= h < range.end of each ad, in hour order, keyed by `adKeyString`. */
export async function readAdHours(pixelId: string, ads: readonly Ad[], range: InstantRange): Promise<Map<string, HourlyMetrics[]>> {
  const byAd = new Map<string, HourlyMetrics[]>(ads.map((ad) => [adKeyString(ad), []]));
  if (ads.length === 0 || !(range.start < range.end)) return byAd;
  await withDuckDB((connection) =>
    withPageTable(connection, ads, async (page) => {
      const hours = await liveHoursSql(connection, pixelId, ads, page, range);
      if (!hours) return;
      await forEachChunk(
        connection,
        `SELECT p.ord, epoch_ms(h.hour) AS hour, h.spend, h.impressions::DOUBLE, h.clicks::DOUBLE, h.conversions::DOUBLE, h.conversion_value
         FROM (${hours}) AS h JOIN ${page} AS p ON p.ad_key = h.ad_key AND p.platform = h.platform AND p.ad_id = h.ad_id
         ORDER BY 1, 2`,
        (columns, count) => {
          for (let i = 0; i < count; i++) {
            const ad = ads[columns[0]!.getItem(i) as number] as Ad;
            byAd.get(adKeyString(ad))!.push({
              hour: Number(columns[1]!.getItem(i)),
              spend: columns[2]!.getItem(i) as number,
              impressions: columns[3]!.getItem(i) as number,
              clicks: columns[4]!.getItem(i) as number,
              conversions: columns[5]!.getItem(i) as number,
              conversionValue: columns[6]!.getItem(i) as number,
            });
          }
        },
      );
    }),
  );
  return byAd;
}
