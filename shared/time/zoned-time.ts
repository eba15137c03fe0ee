/**
 * Calendar arithmetic in IANA time zones, on the platform's Intl data: no dependency, and the
 * same answers on Lambda and on a laptop. Instants are epoch milliseconds; local dates are
 * `YYYY-MM-DD` strings.
 */

/**
 * Formatters are costly to build, so they are kept, per zone name as given. Intl accepts a zone in
 * any letter case, so the names a caller can send are unbounded: past the limit, the oldest goes.
 */
const partsFormatters = new Map<string, Intl.DateTimeFormat>();
const MAX_FORMATTERS = 1_000;

function partsFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = partsFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    if (partsFormatters.size >= MAX_FORMATTERS) partsFormatters.delete(partsFormatters.keys().next().value as string);
    partsFormatters.set(timeZone, formatter);
  }
  return formatter;
}

/** An IANA name's shape: `UTC`, `Europe/Paris`, `America/Argentina/Buenos_Aires`, `Etc/GMT+1`. */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/;
const ZONE_NAME_MAX_LENGTH = 64;

/**
 * The runtime's own name for an IANA time zone (`asia/kolkata` gives `Asia/Calcutta`), or
 * undefined when the name is not one. Offsets such as `+01:00`, which Intl also takes, are not
 * zones. Callers keep the canonical name, so the per-zone caches below hold one entry per zone
 * however a client spells it.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (name.length > ZONE_NAME_MAX_LENGTH || !ZONE_NAME.test(name)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

export function isValidTimeZone(timeZone: string): boolean {
  return canonicalTimeZone(timeZone) !== undefined;
}

interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallTimeAt(instant: number, timeZone: string): WallTime {
  const fields: Record<string, number> = {};
  for (const part of partsFormatter(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') fields[part.type] = Number(part.value);
  }
  return fields as unknown as WallTime;
}

/** The zone's offset from UTC at an instant, in minutes (New York in winter: -300). */
export function offsetMinutesAt(instant: number, timeZone: string): number {
  const wall = wallTimeAt(instant, timeZone);
  const wallAsUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
  return Math.round((wallAsUtc - Math.floor(instant / 1000) * 1000) / 60_000);
}

/** The local calendar date of an instant. */
export function localDateAt(instant: number, timeZone: string): string {
  const wall = wallTimeAt(instant, timeZone);
  return `${wall.year}-${pad(wall.month)}-${pad(wall.day)}`;
}

/**
 * The instant a local wall-clock time denotes. A time skipped by a daylight-saving jump resolves
 * to the instant just after the jump, and a repeated time to its first occurrence, as most
 * calendar software does.
 */
export function instantOfWallTime(date: string, time: { hour: number; minute: number; second: number; millisecond: number }, timeZone: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const wallAsUtc = Date.UTC(year, month - 1, day, time.hour, time.minute, time.second, time.millisecond);
  // The offset is a function of the instant we are solving for; two rounds settle it except
  // inside a transition, which the candidates below resolve.
  const candidates = [offsetMinutesAt(wallAsUtc, timeZone), offsetMinutesAt(wallAsUtc - 86_400_000, timeZone), offsetMinutesAt(wallAsUtc + 86_400_000, timeZone)]
    .map((offset) => wallAsUtc - offset * 60_000)
    .filter((instant) => wallAsUtc - offsetMinutesAt(instant, timeZone) * 60_000 === instant)
    .sort((a, b) => a - b);
  if (candidates[0] !== undefined) return candidates[0];
  // A skipped wall time (inside a spring-forward gap): read it with the offset from before the
  // jump, which lands the same distance after the jump (Temporal's "compatible" rule). For a day
  // whose midnight is skipped, that is the jump itself: the day's first existing instant.
  return wallAsUtc - offsetMinutesAt(wallAsUtc - 86_400_000, timeZone) * 60_000;
}

/** The first instant of a local date (local midnight, or the first existing time that day). */
export function startOfLocalDay(date: string, timeZone: string): number {
  return instantOfWallTime(date, { hour: 0, minute: 0, second: 0, millisecond: 0 }, timeZone);
}

export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const next = new Date(Date.UTC(year, month - 1, day + days));
  // Not toISOString: the day after 9999-12-31 is in year 10000, which it writes as "+010000-…".
  return `${next.getUTCFullYear()}-${pad(next.getUTCMonth() + 1)}-${pad(next.getUTCDate())}`;
}

/** ISO 8601 with the zone's offset at that instant: `2026-03-08T00:00:00.000-05:00`. */
export function formatInZone(instant: number, timeZone: string): string {
  const offset = offsetMinutesAt(instant, timeZone);
  const local = new Date(instant + offset * 60_000).toISOString().slice(0, 23);
  const sign = offset < 0 ? '-' : '+';
  const absolute = Math.abs(offset);
  return `${local}${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}

export interface LocalDay {
  date: string;
  /** First instant of the day (inclusive). */
  start: number;
  /** First instant of the next day (exclusive): 23 or 25 hours after `start` on daylight-saving days. */
  end: number;
}

/** The local days that overlap [from, to), in order. */
export function localDaysBetween(from: number, to: number, timeZone: string): LocalDay[] {
  const days: LocalDay[] = [];
  let date = localDateAt(from, timeZone);
  let start = startOfLocalDay(date, timeZone);
  while (start < to) {
    const next = addDays(date, 1);
    const end = startOfLocalDay(next, timeZone);
    days.push({ date, start, end });
    date = next;
    start = end;
  }
  return days;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
