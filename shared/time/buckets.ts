import type { InstantRange } from './date-range';
import { addDays, formatInZone, localDateAt, offsetMinutesAt, startOfLocalDay } from './zoned-time';

/**
 * Time buckets of a range in an IANA zone, for every granularity of POST /db-mgmt/api/query.
 * Calendar buckets (day, week, month, quarter, year) start at local midnight of their first day, so
 * a daylight-saving day is 23 or 25 hours long; weeks start on Monday. Hours are local clock hours
 * (the repeated hour of an autumn change is two buckets, told apart by their offsets). Every
 * bucket is clipped to the range.
 */
export const GRANULARITIES = ['none', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

export interface Bucket {
  /** The bucket's name in the zone: `2026-03-08`, `2026-03`, `2026-Q1`, `2026`, `2026-03-08T14:00`... */
  dt: string;
  /** First instant (inclusive), clipped to the range. */
  start: number;
  /** First instant after (exclusive), clipped to the range. */
  end: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The buckets of `range`, or undefined when there would be more than `limit` of them. */
export function bucketsOf(range: InstantRange, granularity: Granularity, timeZone: string, limit = Number.POSITIVE_INFINITY): Bucket[] | undefined {
  if (granularity === 'none') return [{ dt: localDateAt(range.start, timeZone), start: range.start, end: range.end }];
  const fixed = { second: SECOND, minute: MINUTE } as const;
  if (granularity === 'second' || granularity === 'minute') {
    const unit = fixed[granularity];
    if ((range.end - range.start) / unit > limit + 1) return undefined;
  }
  const buckets: Bucket[] = [];
  let start = floorTo(range.start, granularity, timeZone);
  while (start < range.end) {
    const next = nextBoundary(start, granularity, timeZone);
    buckets.push({ dt: labelOf(start, granularity, timeZone), start: Math.max(start, range.start), end: Math.min(next, range.end) });
    if (buckets.length > limit) return undefined;
    start = next;
  }
  return buckets;
}

/** The start of the bucket holding `instant`. */
function floorTo(instant: number, granularity: Exclude<Granularity, 'none'>, timeZone: string): number {
  switch (granularity) {
    case 'second':
      return Math.floor(instant / SECOND) * SECOND;
    case 'minute':
      return Math.floor(instant / MINUTE) * MINUTE;
    case 'hour': {
      // Local minutes past the hour, from the offset (some zones are 30 or 45 minutes off UTC).
      const local = instant + offsetMinutesAt(instant, timeZone) * MINUTE;
      return instant - (((local % HOUR) + HOUR) % HOUR);
    }
    default:
      return startOfLocalDay(firstDateOf(localDateAt(instant, timeZone), granularity), timeZone);
  }
}

function nextBoundary(start: number, granularity: Exclude<Granularity, 'none'>, timeZone: string): number {
  switch (granularity) {
    case 'second':
      return start + SECOND;
    case 'minute':
      return start + MINUTE;
    case 'hour':
      return floorTo(start + HOUR, 'hour', timeZone);
    default: {
      const date = localDateAt(start, timeZone);
      return startOfLocalDay(nextDateOf(date, granularity), timeZone);
    }
  }
}

type CalendarGranularity = 'day' | 'week' | 'month' | 'quarter' | 'year';

/** The first local date of the calendar bucket holding `date`. */
export function firstDateOf(date: string, granularity: CalendarGranularity): string {
  const [year, month] = date.split('-').map(Number) as [number, number, number];
  switch (granularity) {
    case 'day':
      return date;
    case 'week': {
      const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
      return addDays(date, -((weekday + 6) % 7));
    }
    case 'month':
      return `${year}-${pad(month)}-01`;
    case 'quarter':
      return `${year}-${pad(month - ((month - 1) % 3))}-01`;
    case 'year':
      return `${year}-01-01`;
  }
}

function nextDateOf(date: string, granularity: CalendarGranularity): string {
  const first = firstDateOf(date, granularity);
  const [year, month] = first.split('-').map(Number) as [number, number, number];
  const months = { day: 0, week: 0, month: 1, quarter: 3, year: 12 }[granularity];
  if (granularity === 'day') return addDays(first, 1);
  if (granularity === 'week') return addDays(first, 7);
  const total = year * 12 + (month - 1) + months;
  return `${Math.floor(total / 12)}-${pad((total % 12) + 1)}-01`;
}

function labelOf(start: number, granularity: Exclude<Granularity, 'none'>, timeZone: string): string {
  const local = formatInZone(start, timeZone);
  switch (granularity) {
    case 'second':
      return local.slice(0, 19);
    case 'minute':
      return local.slice(0, 16);
    case 'hour':
      return `${local.slice(0, 13)}:00`;
    case 'day':
    case 'week':
      return local.slice(0, 10);
    case 'month':
      return local.slice(0, 7);
    case 'quarter':
      return `${local.slice(0, 4)}-Q${Math.floor((Number(local.slice(5, 7)) - 1) / 3) + 1}`;
    case 'year':
      return local.slice(0, 4);
  }
}

/** The index of the bucket holding `instant`, or -1 outside them. Buckets are sorted and contiguous. */
export function bucketIndex(buckets: readonly Bucket[], instant: number): number {
  let low = 0;
  let high = buckets.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const bucket = buckets[middle]!;
    if (instant < bucket.start) high = middle - 1;
    else if (instant >= bucket.end) low = middle + 1;
    else return middle;
  }
  return -1;
}

/** The bounds a point reports: ISO with the zone's offset, end inclusive (its last millisecond), as query-ads does. */
export function bucketLabels(bucket: Bucket, timeZone: string): { start: string; end: string } {
  return { start: formatInZone(bucket.start, timeZone), end: formatInZone(bucket.end - 1, timeZone) };
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
