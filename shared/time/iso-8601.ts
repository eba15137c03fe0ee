/**
 * The textual forms of dates and times this API accepts, and nothing looser: every schema that
 * reads a date, a date-time or an offset goes through these, so one rule holds everywhere and a
 * value that passes can always be resolved to an instant without throwing.
 */

/** Years 1000–9999: four digits, none of the two-digit-year pitfalls of `Date.UTC`. */
const DATE = String.raw`[1-9]\d{3}-\d{2}-\d{2}`;
const HOUR = String.raw`([01]\d|2[0-3])`;
const MINUTE = String.raw`([0-5]\d)`;
/** `Z`, or `±HH:mm` with HH 00–23 and mm 00–59 (RFC 3339). */
const OFFSET = String.raw`(Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)`;

/** `YYYY-MM-DD`. */
export const DATE_PATTERN = new RegExp(`^${DATE}$`);

/** A date-time that names one instant: seconds required, 1–9 fraction digits, an offset required. */
export const INSTANT_PATTERN = new RegExp(`^${DATE}T${HOUR}:${MINUTE}:${MINUTE}(?:\\.\\d{1,9})?${OFFSET}$`);

/**
 * A range bound: a date, or a date-time with optional seconds and milliseconds and an optional
 * offset (without one it is a wall time in the request's zone). Groups: date, hour, minute,
 * second, fraction, offset.
 */
export const RANGE_BOUND_PATTERN = new RegExp(
  `^(${DATE})(?:T${HOUR}:${MINUTE}(?::${MINUTE}(?:\\.(\\d{1,3}))?)?${OFFSET}?)?$`,
);

/** Whether year, month and day name a day of the proleptic Gregorian calendar (no 2026-02-30). */
export function isCalendarDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Every accepted form starts with `YYYY-MM-DD`; the patterns check its shape, this its day. */
function startsWithCalendarDay(value: string): boolean {
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  return isCalendarDay(year, month, day);
}

/** `YYYY-MM-DD` naming a real day. */
export function isIsoDate(value: string): boolean {
  return DATE_PATTERN.test(value) && startsWithCalendarDay(value);
}

/** A date-time with an offset naming a real day (events' timestamps, order dates, server timestamps). */
export function isIsoInstant(value: string): boolean {
  return INSTANT_PATTERN.test(value) && startsWithCalendarDay(value);
}

/** A date-range bound naming a real day. */
export function isRangeBound(value: string): boolean {
  return RANGE_BOUND_PATTERN.test(value) && startsWithCalendarDay(value);
}
