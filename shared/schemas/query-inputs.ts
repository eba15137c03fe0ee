import * as z from 'zod';
import { isValidBound } from '../time/date-range';
import { isValidTimeZone } from '../time/zoned-time';

/**
 * The date, zone and currency members of query bodies. Kept in one module so that query schemas
 * import them from one place.
 */
const ISO_CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** Calendar years a bound may name: enough for any shop's history, and safe for calendar arithmetic. */
export const BOUND_YEARS = { min: 1970, max: 2999 } as const;

const dateBound = z
  .string()
  .max(40)
  .refine(isValidBound, { message: 'Must be a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDTHH:mm[:ss[.sss]][Z|±HH:mm])' })
  .refine(
    (bound) => {
      const year = Number(bound.slice(0, 4));
      return year >= BOUND_YEARS.min && year <= BOUND_YEARS.max;
    },
    { message: `The year must be between ${BOUND_YEARS.min} and ${BOUND_YEARS.max}` },
  );

export const dateRangeSchema = z.strictObject({ start: dateBound, end: dateBound });
export const timeZoneSchema = z.string().max(64).refine(isValidTimeZone, { message: 'Must be an IANA time zone, e.g. "America/New_York"' });
export const currencyCodeSchema = z.string().refine((code) => ISO_CURRENCIES.has(code), { message: 'Must be an ISO 4217 currency code, e.g. "USD"' });
