import { AD_MEASURE_DEFINITIONS, MONEY_PARTS, type AdMeasureId, type AdMetricPart } from '../catalog/measures';
import type { Platform } from '../schemas/ad-import';
import type { HourlyMetrics } from '../store/ad-repository';
import type { InstantRange } from '../time/date-range';
import { formatInZone, localDaysBetween } from '../time/zoned-time';

export type MetricParts = Record<AdMetricPart, number>;

/** The factor that turns an amount in the ad's currency into the requested one on a UTC date. */
export type MoneyRate = (utcDate: string) => number | undefined;

export interface SeriesPoint {
  dt: string;
  start: string;
  end: string;
  [measure: string]: string | number | null;
}

const DAY_MS = 86_400_000;
const emptyParts = (): MetricParts => ({ spend: 0, impressions: 0, clicks: 0, conversions: 0, conversionValue: 0 });
const isMoneyPart = (part: AdMetricPart) => MONEY_PARTS.has(part);

/** A measure needs currency conversion when any part it is computed from is money. */
export function needsConversion(measure: AdMeasureId): boolean {
  const { compute } = AD_MEASURE_DEFINITIONS[measure];
  return compute.kind === 'sum' ? isMoneyPart(compute.part) : isMoneyPart(compute.numerator) || isMoneyPart(compute.denominator);
}

/**
 * One measure from summed parts. Ratios divide sums (never average per-hour ratios) and are null
 * when the denominator is zero. A platform measure counts only its platform's ads, so it reads
 * zero (or null for a ratio) on another platform's ad.
 */
export function measureValue(measure: AdMeasureId, parts: MetricParts, adPlatform: Platform): number | null {
  const value = unroundedMeasureValue(measure, parts, adPlatform);
  return value === null ? null : roundForOutput(value);
}

/**
 * Values are sums of many float64 amounts, some converted; six decimals keep every real-world
 * precision while dropping binary noise such as 3.6799999999999997.
 */
export function roundForOutput(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function unroundedMeasureValue(measure: AdMeasureId, parts: MetricParts, adPlatform: Platform): number | null {
  const definition = AD_MEASURE_DEFINITIONS[measure];
  const counted = definition.platform === null || definition.platform === adPlatform ? parts : emptyParts();
  const { compute } = definition;
  if (compute.kind === 'sum') return counted[compute.part];
  const denominator = counted[compute.denominator];
  return denominator === 0 ? null : (counted[compute.numerator] / denominator) * compute.scale;
}

interface Bucket {
  start: number;
  end: number;
  date: string;
  parts: MetricParts;
}

/**
 * Sums an ad's hours into local days of a range. Money is converted hour by hour at the rate of
 * the hour's UTC date, so a long range uses each day's own rate. `convertible` is false when any
 * hour had no rate; the caller then leaves money measures out.
 */
function bucketByLocalDay(hours: readonly HourlyMetrics[], range: InstantRange, timeZone: string, rate: MoneyRate) {
  const days = localDaysBetween(range.start, range.end, timeZone);
  const buckets = new Map<number, Bucket>();
  const rateByUtcDay = new Map<number, number | undefined>();
  let convertible = true;
  let dayIndex = 0;
  for (const hour of hours) {
    if (hour.hour < range.start || hour.hour >= range.end) continue;
    while (days[dayIndex]!.end <= hour.hour) dayIndex++;
    const day = days[dayIndex]!;
    let bucket = buckets.get(dayIndex);
    if (!bucket) {
      bucket = { start: Math.max(day.start, range.start), end: Math.min(day.end, range.end), date: day.date, parts: emptyParts() };
      buckets.set(dayIndex, bucket);
    }
    const utcDay = Math.floor(hour.hour / DAY_MS);
    if (!rateByUtcDay.has(utcDay)) rateByUtcDay.set(utcDay, rate(new Date(utcDay * DAY_MS).toISOString().slice(0, 10)));
    const factor = rateByUtcDay.get(utcDay);
    if (factor === undefined) convertible = false;
    bucket.parts.spend += hour.spend * (factor ?? 0);
    bucket.parts.conversionValue += hour.conversionValue * (factor ?? 0);
    bucket.parts.impressions += hour.impressions;
    bucket.parts.clicks += hour.clicks;
    bucket.parts.conversions += hour.conversions;
  }
  return { buckets: [...buckets.values()], convertible };
}

/**
 * The daily series of one ad over a range: one point per local day on which the ad has data,
 * days without data left out. Each point carries its day, its bounds in the zone (clipped to the
 * range, end inclusive), and one value per measure.
 */
export function dailySeries(options: {
  hours: readonly HourlyMetrics[];
  range: InstantRange;
  timeZone: string;
  measures: readonly AdMeasureId[];
  platform: Platform;
  rate: MoneyRate;
}): { points: SeriesPoint[]; convertible: boolean } {
  const { buckets, convertible } = bucketByLocalDay(options.hours, options.range, options.timeZone, options.rate);
  const points = buckets.map((bucket) => {
    const point: SeriesPoint = {
      dt: bucket.date,
      start: formatInZone(bucket.start, options.timeZone),
      end: formatInZone(bucket.end - 1, options.timeZone),
    };
    for (const measure of options.measures) point[measure] = measureValue(measure, bucket.parts, options.platform);
    return point;
  });
  return { points, convertible };
}

/** Every measure of an ad over a whole range, for filtering on metrics. Null where it cannot be computed. */
export function rangeTotals(options: {
  hours: readonly HourlyMetrics[];
  range: InstantRange;
  measures: readonly AdMeasureId[];
  platform: Platform;
  rate: MoneyRate;
}): Record<string, number | null> {
  const { buckets, convertible } = bucketByLocalDay(options.hours, options.range, 'UTC', options.rate);
  const parts = emptyParts();
  for (const bucket of buckets) for (const part of Object.keys(parts) as AdMetricPart[]) parts[part] += bucket.parts[part];
  const totals: Record<string, number | null> = {};
  for (const measure of options.measures) {
    totals[measure] = !convertible && needsConversion(measure) ? null : measureValue(measure, parts, options.platform);
  }
  return totals;
}
