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

export { emptyParts };

/**
 * One measure from parts kept per platform (a bucket that sums many ads): a `channel.*` measure
 * adds every platform's parts, a `<platform>.*` measure reads its platform's only, then the same
 * computation as for one ad. Unrounded, so that callers can combine it further.
 */
export function adMeasureFromPlatformParts(measure: AdMeasureId, partsByPlatform: Partial<Record<Platform, MetricParts>>): number | null {
  const { platform } = AD_MEASURE_DEFINITIONS[measure];
  const summed = emptyParts();
  for (const [name, parts] of Object.entries(partsByPlatform) as Array<[Platform, MetricParts]>) {
    if (platform !== null && platform !== name) continue;
    for (const part of Object.keys(summed) as AdMetricPart[]) summed[part] += parts[part];
  }
  return unroundedMeasureValue(measure, summed, platform ?? 'meta');
}

/** A local day of a range, with the bounds a series point reports for it. */
interface CalendarDay {
  date: string;
  start: number;
  end: number;
  startLabel: string;
  endLabel: string;
}

/**
 * The local days of a range in a zone, each with its bounds clipped to the range and formatted
 * with the offset in force. It depends only on the range and the zone, never on an ad, so a
 * request computes it once per range and every row reuses it: zone arithmetic is the costly part.
 */
export interface RangeCalendar {
  range: InstantRange;
  days: readonly CalendarDay[];
}

export function rangeCalendar(range: InstantRange, timeZone: string): RangeCalendar {
  const days = localDaysBetween(range.start, range.end, timeZone).map((day) => {
    const start = Math.max(day.start, range.start);
    const end = Math.min(day.end, range.end);
    return { date: day.date, start, end, startLabel: formatInZone(start, timeZone), endLabel: formatInZone(end - 1, timeZone) };
  });
  return { range, days };
}

/** Sums money at each hour's UTC-date rate; remembers whether any hour had no rate. */
export class HourSummer {
  private readonly rateByUtcDay = new Map<number, number | undefined>();
  convertible = true;

  constructor(private readonly rate: MoneyRate) {}

  add(parts: MetricParts, hour: HourlyMetrics): void {
    const utcDay = Math.floor(hour.hour / DAY_MS);
    if (!this.rateByUtcDay.has(utcDay)) this.rateByUtcDay.set(utcDay, this.rate(new Date(utcDay * DAY_MS).toISOString().slice(0, 10)));
    const factor = this.rateByUtcDay.get(utcDay);
    if (factor === undefined) this.convertible = false;
    parts.spend += hour.spend * (factor ?? 0);
    parts.conversionValue += hour.conversionValue * (factor ?? 0);
    parts.impressions += hour.impressions;
    parts.clicks += hour.clicks;
    parts.conversions += hour.conversions;
  }
}

/**
 * The daily series of one ad over a range: one point per local day on which the ad has data,
 * days without data left out. Each point carries its day, its bounds in the zone (clipped to the
 * range, end inclusive), and one value per measure. Money is converted hour by hour at the rate
 * of the hour's UTC date, so a long range uses each day's own rate; `convertible` is false when
 * some hour had no rate, and the caller then leaves money measures out.
 */
export function dailySeries(options: {
  hours: readonly HourlyMetrics[];
  calendar: RangeCalendar;
  measures: readonly AdMeasureId[];
  platform: Platform;
  rate: MoneyRate;
}): { points: SeriesPoint[]; convertible: boolean } {
  const { range, days } = options.calendar;
  const summer = new HourSummer(options.rate);
  const points: SeriesPoint[] = [];
  let dayIndex = 0;
  let current: { day: CalendarDay; parts: MetricParts } | undefined;
  const close = () => {
    if (!current) return;
    const point: SeriesPoint = { dt: current.day.date, start: current.day.startLabel, end: current.day.endLabel };
    for (const measure of options.measures) point[measure] = measureValue(measure, current.parts, options.platform);
    points.push(point);
  };
  // Hours arrive sorted, so days are visited in order and each is closed once.
  for (const hour of options.hours) {
    if (hour.hour < range.start || hour.hour >= range.end) continue;
    while (days[dayIndex]!.end <= hour.hour) dayIndex++;
    const day = days[dayIndex]!;
    if (current?.day !== day) {
      close();
      current = { day, parts: emptyParts() };
    }
    summer.add(current.parts, hour);
  }
  close();
  return { points, convertible: summer.convertible };
}

/** Every measure of an ad over a whole range, for filtering on metrics. Null where it cannot be computed. */
export function rangeTotals(options: {
  hours: readonly HourlyMetrics[];
  range: InstantRange;
  measures: readonly AdMeasureId[];
  platform: Platform;
  rate: MoneyRate;
}): Record<string, number | null> {
  const summer = new HourSummer(options.rate);
  const parts = emptyParts();
  for (const hour of options.hours) {
    if (hour.hour >= options.range.start && hour.hour < options.range.end) summer.add(parts, hour);
  }
  const totals: Record<string, number | null> = {};
  for (const measure of options.measures) {
    totals[measure] = !summer.convertible && needsConversion(measure) ? null : measureValue(measure, parts, options.platform);
  }
  return totals;
}
