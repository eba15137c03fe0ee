import { addCell, calendarOf, CELL_STRIDE, cellsFromHours, RateCache, type MetricParts } from '../ads/ad-series';
import type { FxTable } from '../ads/fx-table';
import type { Ad } from '../schemas/ad-import';
import { readAdCells, type HourlyMetrics } from './store/ad-facts';
import { bucketIndex, type Bucket, type Granularity } from '../time/buckets';
import type { InstantRange } from '../time/date-range';

/**
 * Ad metrics summed over buckets of whole local days, shared by POST /db-mgmt/api/query (channel
 * and blended measures) and POST /db-mgmt/api/query-attribution (the spend join): each ad's cells
 * (ad-series.ts) over the range's calendar in the query's zone, summed by DuckDB from the live
 * hours (or, for a hand-built source, from its hours here), then converted cell by cell.
 */

/** Granularities whose buckets are whole local days (clipped to the range): ad metrics sum by day cells. */
export const DAY_GRANULARITIES: ReadonlySet<Granularity> = new Set(['day', 'week', 'month', 'quarter', 'year', 'none']);

/** Each ad's cells over `calendarOf(range, timeZone)`, keyed by `adKeyString`, as the ad listing reads them. */
export function loadAdDayCells(pixelId: string, ads: readonly Ad[], range: InstantRange, timeZone: string): Promise<Map<string, Float64Array>> {
  return readAdCells(pixelId, ads, calendarOf(range, timeZone));
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
