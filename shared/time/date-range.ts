import { addDays, instantOfWallTime, startOfLocalDay } from './zoned-time';

/** `YYYY-MM-DD`, or a date-time with optional seconds, fraction and offset. */
export const DATE_OR_DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** A half-open span of instants, [start, end), in epoch milliseconds. */
export interface InstantRange {
  start: number;
  end: number;
}

export function isCalendarDate(date: string): boolean {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const parsed = new Date(Date.UTC(year, month - 1, day));
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day;
}

/** A bound is well-formed when it matches the pattern and names a real date and time. */
export function isValidBound(value: string): boolean {
  const match = DATE_OR_DATE_TIME.exec(value);
  if (!match || !isCalendarDate(match[1]!)) return false;
  const [hour, minute, second] = [match[2], match[3], match[4]].map((part) => Number(part ?? 0));
  return hour! < 24 && minute! < 60 && second! < 60;
}

/**
 * Reads a `{start, end}` pair in a time zone. A date-only start is that day's first instant; a
 * date-only end covers that whole day. A date-time with an offset is that instant; without one it
 * is a wall time in the zone. A date-time end is exclusive.
 */
export function resolveDateRange(range: { start: string; end: string }, timeZone: string): InstantRange {
  return { start: resolveBound(range.start, timeZone, 'start'), end: resolveBound(range.end, timeZone, 'end') };
}

function resolveBound(value: string, timeZone: string, side: 'start' | 'end'): number {
  const match = DATE_OR_DATE_TIME.exec(value);
  if (!match) throw new Error(`Not a date or date-time: ${value}`);
  const [, date, hour, minute, second, fraction, offset] = match as unknown as [string, string, string?, string?, string?, string?, string?];
  if (hour === undefined) return startOfLocalDay(side === 'start' ? date : addDays(date, 1), timeZone);
  if (offset !== undefined) return Date.parse(value);
  return instantOfWallTime(
    date,
    { hour: Number(hour), minute: Number(minute), second: Number(second ?? 0), millisecond: Number((fraction ?? '0').padEnd(3, '0')) },
    timeZone,
  );
}

export function rangesOverlap(a: InstantRange, b: InstantRange): boolean {
  return a.start < b.end && b.start < a.end;
}
