import { AD_MEASURE_DEFINITIONS, MONEY_PARTS, type AdMeasureId, type AdMetricPart } from '../catalog/measures';
import type { Platform } from '../schemas/ad-import';
import type { HourlyMetrics } from '../analytics/store/ad-facts';
import type { InstantRange } from '../time/date-range';
import { formatInZone, localDaysBetween, type LocalDay } from '../time/zoned-time';

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

/**
 * An ad's metrics over a calendar as cells: one per (local day of the calendar, UTC date) pair
 * that has hours, each the sums of the hours that start on that local day and UTC date. Money is
 * kept apart by UTC date because a measure converts each hour at the rate of its UTC date
 * (ARCHITECTURE.md): a local day in New York spans two UTC dates, each part converting at its
 * own. Seven numbers a cell, in (day, UTC day) order, in one Float64Array with no object per cell:
 *   day (index into the calendar), UTC day (days since 1970-01-01), spend, impressions, clicks,
 *   conversions, conversionValue
 */
export const CELL_STRIDE = 7;

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

/** What another platform's measure reads on an ad: nothing counted. Shared, so a page allocates none. */
const NOTHING_COUNTED: Readonly<MetricParts> = Object.freeze(emptyParts());

function unroundedMeasureValue(measure: AdMeasureId, parts: MetricParts, adPlatform: Platform): number | null {
  const definition = AD_MEASURE_DEFINITIONS[measure];
  const counted = definition.platform === null || definition.platform === adPlatform ? parts : NOTHING_COUNTED;
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
  const local = localDaysBetween(range.start, range.end, timeZone);
  const days = local.map((day) => {
    const start = Math.max(day.start, range.start);
    const end = Math.min(day.end, range.end);
    return { date: day.date, start, end, startLabel: formatInZone(start, timeZone), endLabel: formatInZone(end - 1, timeZone) };
  });
  return { range, days };
}

const calendars = new Map<string, RangeCalendar>();
const MAX_CALENDARS = 64;

/**
 * `rangeCalendar`, remembered for the last few (range, zone) pairs: zone arithmetic is costly, a
 * query needs each range's calendar twice (to read ad cells and to sum them), dashboards ask the
 * same ranges again, and a listing page formatted its 90 days' bounds on every request.
 */
export function calendarOf(range: InstantRange, timeZone: string): RangeCalendar {
  const key = `${range.start}/${range.end}/${timeZone}`;
  let calendar = calendars.get(key);
  if (!calendar) {
    if (calendars.size >= MAX_CALENDARS) calendars.delete(calendars.keys().next().value as string);
    calendars.set(key, (calendar = rangeCalendar(range, timeZone)));
  }
  return calendar;
}

/** The cells of one ad over a calendar from its hours (sorted), summed in hour order. */
export function cellsFromHours(hours: readonly HourlyMetrics[], calendar: RangeCalendar): Float64Array {
  const { days } = calendar;
  const cells: number[] = [];
  let dayIndex = 0;
  let last = -1;
  for (const hour of hours) {
    while (dayIndex < days.length && (days[dayIndex] as CalendarDay).end <= hour.hour) dayIndex++;
    const day = days[dayIndex];
    if (!day || hour.hour < day.start) continue;
    const utcDay = Math.floor(hour.hour / DAY_MS);
    if (last < 0 || cells[last] !== dayIndex || cells[last + 1] !== utcDay) {
      last = cells.length;
      cells.push(dayIndex, utcDay, 0, 0, 0, 0, 0);
    }
    cells[last + 2] = (cells[last + 2] as number) + hour.spend;
    cells[last + 3] = (cells[last + 3] as number) + hour.impressions;
    cells[last + 4] = (cells[last + 4] as number) + hour.clicks;
    cells[last + 5] = (cells[last + 5] as number) + hour.conversions;
    cells[last + 6] = (cells[last + 6] as number) + hour.conversionValue;
  }
  return Float64Array.from(cells);
}

/**
 * Conversion factors by currency and UTC day, shared by every ad of a request: a page of 500 ads
 * in a few currencies looks each day's rate up a few times, not once per ad.
 */
export class RateCache {
  private readonly byCurrency = new Map<string, Map<number, number | undefined>>();

  constructor(private readonly rateOf: (currency: string) => MoneyRate) {}

  factor(currency: string, utcDay: number): number | undefined {
    let days = this.byCurrency.get(currency);
    if (!days) this.byCurrency.set(currency, (days = new Map()));
    if (!days.has(utcDay)) days.set(utcDay, this.rateOf(currency)(new Date(utcDay * DAY_MS).toISOString().slice(0, 10)));
    return days.get(utcDay);
  }
}

/**
 * One ad's series in columns: the calendar days that have data, and one value per day per measure.
 * Typed arrays, NaN standing for null: a page of 500 ads is 90,000 values per measure, and
 * arrays of boxed numbers were most of a page's garbage.
 */
export interface ColumnSeries {
  day: Int32Array;
  values: Record<string, Float64Array>;
  /** False when some cell had no rate: the caller leaves money measures out. */
  convertible: boolean;
}

/** A measure reduced to indexes into a day's five sums (AD_METRIC_PARTS order), for one platform's ads. */
interface CompiledMeasure {
  /** Another platform's measure: nothing counted on this ad (0, or null for a ratio). */
  counted: boolean;
  ratio: boolean;
  /** The summed part, or the ratio's numerator. */
  part: number;
  denominator: number;
  scale: number;
}

const PART_INDEX: Readonly<Record<AdMetricPart, number>> = { spend: 0, impressions: 1, clicks: 2, conversions: 3, conversionValue: 4 };

/** The measures' definitions for one platform, looked up once per request rather than per value. */
const compiledMeasures = new Map<string, readonly CompiledMeasure[]>();

function compileMeasures(measures: readonly AdMeasureId[], platform: Platform): readonly CompiledMeasure[] {
  const key = `${platform}\n${measures.join(',')}`;
  let compiled = compiledMeasures.get(key);
  if (!compiled) {
    compiled = measures.map((measure) => {
      const { platform: only, compute } = AD_MEASURE_DEFINITIONS[measure];
      const counted = only === null || only === platform;
      return compute.kind === 'sum'
        ? { counted, ratio: false, part: PART_INDEX[compute.part], denominator: 0, scale: 1 }
        : { counted, ratio: true, part: PART_INDEX[compute.numerator], denominator: PART_INDEX[compute.denominator], scale: compute.scale };
    });
    if (compiledMeasures.size >= 256) compiledMeasures.clear();
    compiledMeasures.set(key, compiled);
  }
  return compiled;
}

/**
 * The daily series of one ad from its cells: one entry per calendar day that has data, days
 * without data left out, one value per measure (NaN where the measure is null). Money converts
 * cell by cell at the rate of the cell's UTC date, so a long range uses each day's own rate and a
 * local day that spans two UTC dates converts each part at its own.
 *
 * The same arithmetic as `addCell` and `measureValue`, in the same order (so the same doubles),
 * on a page's hot path: a page of 500 ads is 450,000 values, and looking each measure's
 * definition up per value, and each cell's rate in two maps, was a tenth of a request.
 */
export function seriesFromCells(options: {
  cells: Float64Array;
  measures: readonly AdMeasureId[];
  platform: Platform;
  currency: string;
  rates: RateCache;
}): ColumnSeries {
  const { cells, measures } = options;
  const compiled = compileMeasures(measures, options.platform);
  let days = 0;
  for (let i = 0; i < cells.length; i += CELL_STRIDE) if (i === 0 || cells[i] !== cells[i - CELL_STRIDE]) days++;
  const day = new Int32Array(days);
  const columns = measures.map(() => new Float64Array(days));
  let convertible = true;
  // A day's five sums, in AD_METRIC_PARTS order.
  const sums = new Float64Array(5);
  let rateDay = Number.NaN;
  let factor: number | undefined;
  let i = 0;
  for (let d = 0; d < days; d++) {
    const dayIndex = cells[i] as number;
    sums.fill(0);
    for (; i < cells.length && cells[i] === dayIndex; i += CELL_STRIDE) {
      const utcDay = cells[i + 1] as number;
      if (utcDay !== rateDay) {
        rateDay = utcDay;
        factor = options.rates.factor(options.currency, utcDay);
      }
      if (factor === undefined) convertible = false;
      sums[0] = (sums[0] as number) + (cells[i + 2] as number) * (factor ?? 0);
      sums[1] = (sums[1] as number) + (cells[i + 3] as number);
      sums[2] = (sums[2] as number) + (cells[i + 4] as number);
      sums[3] = (sums[3] as number) + (cells[i + 5] as number);
      sums[4] = (sums[4] as number) + (cells[i + 6] as number) * (factor ?? 0);
    }
    day[d] = dayIndex;
    for (let m = 0; m < compiled.length; m++) {
      const measure = compiled[m] as CompiledMeasure;
      let value: number;
      if (!measure.ratio) value = measure.counted ? (sums[measure.part] as number) : 0;
      else {
        const denominator = measure.counted ? (sums[measure.denominator] as number) : 0;
        value = denominator === 0 ? Number.NaN : (((measure.counted ? sums[measure.part] : 0) as number) / denominator) * measure.scale;
      }
      (columns[m] as Float64Array)[d] = Number.isNaN(value) ? value : roundForOutput(value);
    }
  }
  const values: Record<string, Float64Array> = {};
  measures.forEach((measure, m) => (values[measure] = columns[m] as Float64Array));
  return { day, values, convertible };
}

/** Adds cell `i` (at its UTC date's rate) to `parts`; false when that date has no rate. */
export function addCell(parts: MetricParts, cells: Float64Array, i: number, currency: string, rates: RateCache): boolean {
  const factor = rates.factor(currency, cells[i + 1] as number);
  parts.spend += (cells[i + 2] as number) * (factor ?? 0);
  parts.impressions += cells[i + 3] as number;
  parts.clicks += cells[i + 4] as number;
  parts.conversions += cells[i + 5] as number;
  parts.conversionValue += (cells[i + 6] as number) * (factor ?? 0);
  return factor !== undefined;
}

/** Every measure of an ad over a whole range, for filtering on metrics. Null where it cannot be computed. */
export function totalsFromCells(options: {
  cells: Float64Array;
  measures: readonly AdMeasureId[];
  platform: Platform;
  currency: string;
  rates: RateCache;
}): Record<string, number | null> {
  const parts = emptyParts();
  let convertible = true;
  for (let i = 0; i < options.cells.length; i += CELL_STRIDE) {
    if (!addCell(parts, options.cells, i, options.currency, options.rates)) convertible = false;
  }
  const totals: Record<string, number | null> = {};
  for (const measure of options.measures) {
    totals[measure] = !convertible && needsConversion(measure) ? null : measureValue(measure, parts, options.platform);
  }
  return totals;
}
