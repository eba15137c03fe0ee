import { isRangeBound, RANGE_BOUND_PATTERN } from './iso-8601';
import { addDays, instantOfWallTime, startOfLocalDay } from './zoned-time';

/** A half-open span of instants, [start, end), in epoch milliseconds. */
export interface InstantRange {
  start: number;
  end: number;
}

/** A bound is well-formed when it has the accepted form and names a real day. */
export const isValidBound = isRangeBound;

/**
 * Reads a `{start, end}` pair in a time zone. A date-only start is that day's first instant; a
 * date-only end covers that whole day. A date-time with an offset is that instant; without one it
 * is a wall time in the zone. A date-time end is exclusive. The bounds must have passed
 * `isValidBound` and the zone `canonicalTimeZone`.
 */
export function resolveDateRange(range: { start: string; end: string }, timeZone: string): InstantRange {
  return { start: resolveBound(range.start, timeZone, 'start'), end: resolveBound(range.end, timeZone, 'end') };
}

function resolveBound(value: string, timeZone: string, side: 'start' | 'end'): number {
  const match = RANGE_BOUND_PATTERN.exec(value);
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
