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

const DIGIT_0 = 48;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The value of the decimal digits of `text` from `start` to `end`, or -1 when one is not a digit. */
function digitsAt(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = text.charCodeAt(i) - DIGIT_0;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * `Date.parse(text)`, fast for the form `toISOString()` writes (`YYYY-MM-DDTHH:mm:ss.sssZ`), in
 * which order dates and refund times are stored: the query and cohort reads parse several per
 * order, and the engine's general date parser cost more than everything else done per order.
 * Any other text goes to `Date.parse`, so the answer is always the same as its.
 */
export function parseInstant(text: string): number {
  if (
    text.length === 24 &&
    text.charCodeAt(4) === 45 && // -
    text.charCodeAt(7) === 45 &&
    text.charCodeAt(10) === 84 && // T
    text.charCodeAt(13) === 58 && // :
    text.charCodeAt(16) === 58 &&
    text.charCodeAt(19) === 46 && // .
    text.charCodeAt(23) === 90 // Z
  ) {
    const year = digitsAt(text, 0, 4);
    const month = digitsAt(text, 5, 7);
    const day = digitsAt(text, 8, 10);
    const hour = digitsAt(text, 11, 13);
    const minute = digitsAt(text, 14, 16);
    const second = digitsAt(text, 17, 19);
    const millisecond = digitsAt(text, 20, 23);
    const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
    if (
      year >= 1000 &&
      month >= 1 &&
      month <= 12 &&
      day >= 1 &&
      day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!) &&
      hour >= 0 &&
      hour <= 23 &&
      minute >= 0 &&
      minute <= 59 &&
      second >= 0 &&
      second <= 59 &&
      millisecond >= 0
    ) {
      return Date.UTC(year, month - 1, day, hour, minute, second, millisecond);
    }
  }
  return Date.parse(text);
}
