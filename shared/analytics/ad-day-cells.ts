import { addCell, calendarOf, cellsFromHours, RateCache, type MetricParts } from '../ads/ad-series';
import type { FxTable } from '../ads/fx-table';
import { loadAdCells } from '../ads/query-ads-service';
import type { Ad } from '../schemas/ad-import';
import { loadAdDirectory } from '../store/ad-repository';
import { CELL_STRIDE } from '../store/daily-rollup-codec';
import type { HourlyMetrics } from '../store/hourly-metrics-codec';
import { bucketIndex, type Bucket, type Granularity } from '../time/buckets';
import type { InstantRange } from '../time/date-range';

/**
 * Ad metrics summed over buckets of whole local days, shared by POST /db-mgmt/api/query (channel
 * and blended measures) and POST /db-mgmt/api/query-attribution (the spend join): each ad's cells
 * (daily-rollup-codec.ts) over the range's calendar in the query's zone, read from the daily
 * rollups where the store has them, else summed from the hours in hour order as the rollups are,
 * so both give the same figures.
 */

/** Granularities whose buckets are whole local days (clipped to the range): ad metrics sum by day cells. */
export const DAY_GRANULARITIES: ReadonlySet<Granularity> = new Set(['day', 'week', 'month', 'quarter', 'year', 'none']);

/**
 * Each ad's cells over `calendarOf(range, timeZone)`, keyed by `adKeyString`: the daily rollups
 * when the range is whole days in UTC or in the pixel's reporting zone, else the hours (as the ad
 * listing reads them, `loadAdCells`).
 */
export async function loadAdDayCells(pixelId: string, ads: readonly Ad[], range: InstantRange, timeZone: string): Promise<Map<string, Float64Array>> {
  return loadAdCells(pixelId, await loadAdDirectory(pixelId), ads, calendarOf(range, timeZone), timeZone);
}

/** An ad and its metrics over a range: its cells when they were read, else its hours. */
export interface AdDayInput {
  ad: Ad;
  hours: readonly HourlyMetrics[];
  cells?: Float64Array;
}

/** What a query or attribution answer says of an ad some of whose hours had no rate into `currency`. */
export const noExchangeRate = (ad: Pick<Ad, 'currency' | 'platform' | 'adId'>, currency: string) =>
  `No exchange rate from ${ad.currency} to ${currency} for some hours of ad ${ad.platform}:${ad.adId}`;

/**
 * Adds each ad's metrics into the parts `partsOf(ad)` gives for a bucket (each bucket of whole
 * local days of `buckets`, over the range's calendar in `timeZone`). Money converts cell by cell
 * at the rate of the cell's UTC date into `currency`, as the ad listing does (a local day
 * spanning two UTC dates converts each part at its own). Returns the first ad some of whose cells
 * had no rate, if any.
 */
export function sumAdDays(options: {
  ads: Iterable<AdDayInput>;
  range: InstantRange;
  timeZone: string;
  buckets: readonly Bucket[];
  currency: string;
  fx: FxTable;
  /** For one ad, the parts its metrics of a bucket add to (created on first use, so an ad without data makes none). */
  partsOf: (ad: Ad) => (bucket: number) => readonly MetricParts[];
}): Ad | undefined {
  const calendar = calendarOf(options.range, options.timeZone);
  const bucketOfDay = calendar.days.map((day) => bucketIndex(options.buckets, day.start));
  const rates = new RateCache((from) => (utcDate) => options.fx.convert(1, from, options.currency, utcDate));
  let unconvertible: Ad | undefined;
  for (const { ad, hours, cells: given } of options.ads) {
    const cells = given ?? cellsFromHours(hours, calendar);
    const partsOfBucket = options.partsOf(ad);
    // Consecutive cells of one day go to the same parts, found once per day.
    let day = -1;
    let targets: readonly MetricParts[] = [];
    for (let i = 0; i < cells.length; i += CELL_STRIDE) {
      if (cells[i] !== day) {
        day = cells[i] as number;
        targets = partsOfBucket(bucketOfDay[day]!);
      }
      for (const parts of targets) if (!addCell(parts, cells, i, ad.currency, rates)) unconvertible ??= ad;
    }
  }
  return unconvertible;
}
