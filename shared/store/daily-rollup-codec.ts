import { localDaysBetween } from '../time/zoned-time';
import { monthKeyOf, monthStartOf, type HourlyMetrics } from './hourly-metrics-codec';

/**
 * Daily rollups of one ad's hourly metrics, for one UTC month of hours, in one time zone.
 *
 * A rollup is a list of cells, one per (local date, UTC date) pair that has hours: each cell sums
 * the hours that start on that local date in the zone and on that UTC date. Money is kept apart
 * by UTC date because a measure converts each hour at the rate of its UTC date (ARCHITECTURE.md):
 * a local day in New York spans two UTC dates, and each part converts at its own rate. In UTC a
 * cell is simply a day.
 *
 * Cells are stored as one string attribute of comma-separated numbers, 7 per cell:
 *   local day, UTC day (both as days after the first day of the month, the local one can be -1),
 *   spend, impressions, clicks, conversions, conversionValue
 * in (local day, UTC day) order. Numbers are written in JavaScript's shortest round-trip form, so
 * every float64 sum reads back bit for bit, and no DynamoDB number range applies; decoding is one
 * split into a Float64Array, with no object per cell.
 *
 * The parts are the hours' sums taken in hour order, the same order every reader of hourly data
 * adds them in (hoursToCells), so a rollup and the hours it came from give identical numbers.
 */
export const CELL_STRIDE = 7;
export const CELL = { localDay: 0, utcDay: 1, spend: 2, impressions: 3, clicks: 4, conversions: 5, conversionValue: 6 } as const;

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a `YYYY-MM-DD` date. */
export function dayNumberOf(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / DAY_MS;
}

export interface ZoneDay {
  /** Days since 1970-01-01 of the local date. */
  dayNumber: number;
  start: number;
  end: number;
}

/**
 * The local days of a zone covering one UTC month. Zone arithmetic is the costly part and the
 * answer depends only on (zone, month), so an import of thousands of ads computes it once.
 */
const monthDaysCache = new Map<string, readonly ZoneDay[]>();
const MAX_CACHED_MONTHS = 2_000;

export function zoneDaysOfMonth(monthKey: string, timeZone: string): readonly ZoneDay[] {
  const cacheKey = `${timeZone}\n${monthKey}`;
  let days = monthDaysCache.get(cacheKey);
  if (!days) {
    const start = monthStartOf(monthKey);
    const end = monthStartOf(monthKeyOf(start + 32 * DAY_MS));
    days = localDaysBetween(start, end, timeZone).map((day) => ({ dayNumber: dayNumberOf(day.date), start: day.start, end: day.end }));
    if (monthDaysCache.size >= MAX_CACHED_MONTHS) monthDaysCache.delete(monthDaysCache.keys().next().value as string);
    monthDaysCache.set(cacheKey, days);
  }
  return days;
}

/**
 * Sums sorted hours into cells. `dayOf` walks forward only: `days` must cover every hour, in
 * order. `localDay` of a cell is what `dayIndex` returns for its day (a day number, or an index
 * into a request's calendar).
 */
export function hoursToCells(
  hours: readonly HourlyMetrics[],
  days: ReadonlyArray<{ start: number; end: number }>,
  dayId: (index: number) => number,
): Float64Array {
  const cells: number[] = [];
  let dayIndex = 0;
  let last = -1;
  for (const hour of hours) {
    while (dayIndex < days.length && (days[dayIndex] as { end: number }).end <= hour.hour) dayIndex++;
    const day = days[dayIndex];
    if (!day || hour.hour < day.start) continue;
    const localDay = dayId(dayIndex);
    const utcDay = Math.floor(hour.hour / DAY_MS);
    if (last < 0 || cells[last] !== localDay || cells[last + 1] !== utcDay) {
      last = cells.length;
      cells.push(localDay, utcDay, 0, 0, 0, 0, 0);
    }
    cells[last + 2] = (cells[last + 2] as number) + hour.spend;
    cells[last + 3] = (cells[last + 3] as number) + hour.impressions;
    cells[last + 4] = (cells[last + 4] as number) + hour.clicks;
    cells[last + 5] = (cells[last + 5] as number) + hour.conversions;
    cells[last + 6] = (cells[last + 6] as number) + hour.conversionValue;
  }
  return Float64Array.from(cells);
}

/** The rollup of one UTC month's hours (sorted, all of that month) in a zone: cells keyed by day numbers. */
export function rollupMonth(monthKey: string, hours: readonly HourlyMetrics[], timeZone: string): Float64Array {
  if (timeZone === 'UTC') {
    const firstDay = monthStartOf(monthKey) / DAY_MS;
    const days = Array.from({ length: 31 }, (_, i) => ({ start: (firstDay + i) * DAY_MS, end: (firstDay + i + 1) * DAY_MS }));
    return hoursToCells(hours, days, (index) => firstDay + index);
  }
  const days = zoneDaysOfMonth(monthKey, timeZone);
  return hoursToCells(hours, days, (index) => (days[index] as ZoneDay).dayNumber);
}

export function encodeCells(monthKey: string, cells: Float64Array): string {
  const base = monthStartOf(monthKey) / DAY_MS;
  const out: string[] = [];
  for (let i = 0; i < cells.length; i += CELL_STRIDE) {
    out.push(
      String((cells[i] as number) - base),
      String((cells[i + 1] as number) - base),
      String(cells[i + 2]),
      String(cells[i + 3]),
      String(cells[i + 4]),
      String(cells[i + 5]),
      String(cells[i + 6]),
    );
  }
  return out.join(',');
}

/** Exact powers of ten: every one up to 1e22 is a double with no rounding. */
const POWERS_OF_TEN = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * Cells with absolute day numbers again. Read in place, without splitting the text into a string
 * per number. A number of at most 15 significant digits, written as digits with an optional point
 * (nearly every field), is read as an integer of its digits divided by a power of ten: both are
 * exact doubles (below 2^53, at most 1e22) and the division is correctly rounded, so the result is
 * the double nearest the decimal, what Number gives. Anything else (more digits, an exponent)
 * goes through Number itself.
 */
export function decodeCells(monthKey: string, text: string): Float64Array {
  if (text === '') return new Float64Array(0);
  let fieldCount = 1;
  for (let comma = text.indexOf(','); comma >= 0; comma = text.indexOf(',', comma + 1)) fieldCount++;
  if (fieldCount % CELL_STRIDE !== 0) throw new Error(`Daily rollup of month ${monthKey} is not a whole number of cells`);
  const base = monthStartOf(monthKey) / DAY_MS;
  const cells = new Float64Array(fieldCount);
  let start = 0;
  for (let field = 0; field < fieldCount; field++) {
    let end = text.indexOf(',', start);
    if (end < 0) end = text.length;
    let i = start;
    const negative = text.charCodeAt(i) === 45;
    if (negative) i++;
    let digits = 0;
    let fractionDigits = -1;
    let value = 0;
    let simple = i < end;
    for (; simple && i < end; i++) {
      const code = text.charCodeAt(i);
      if (code === 46 && fractionDigits < 0) fractionDigits = 0;
      else if (code >= 48 && code <= 57) {
        value = value * 10 + (code - 48);
        digits++;
        if (fractionDigits >= 0) fractionDigits++;
      } else simple = false;
    }
    if (simple && digits > 0 && digits <= 15 && fractionDigits !== 0) {
      if (fractionDigits > 0) value /= POWERS_OF_TEN[fractionDigits] as number;
      cells[field] = negative ? -value : value;
    } else {
      cells[field] = Number(text.slice(start, end));
    }
    start = end + 1;
  }
  for (let i = 0; i < cells.length; i += CELL_STRIDE) {
    cells[i] = (cells[i] as number) + base;
    cells[i + 1] = (cells[i + 1] as number) + base;
  }
  return cells;
}
