import * as z from 'zod/mini';
import { addTransformIssue } from './zod-mini';
import { isIsoDate, isIsoInstant, isRangeBound } from '../time/iso-8601';
import { canonicalTimeZone } from '../time/zoned-time';

/*
 * The one grammar of dates, date-times, offsets and time zones (shared/time/iso-8601.ts), as zod
 * schemas. Every body that carries one uses these: query ranges, dashboard ranges, event
 * timestamps, order dates, server timestamps sent back. Failures carry the events API's problem
 * code in `params.code`, so that API reports them as `invalid_format` like any other format.
 */

const invalidFormat = (message: string) => ({ message, params: { code: 'invalid_format' } });

export const DATE_MESSAGE = 'Must be a calendar date YYYY-MM-DD (year 1000 to 9999), like 2026-03-01';
export const INSTANT_MESSAGE =
  'Must be an ISO 8601 date-time with seconds and a time zone, YYYY-MM-DDTHH:mm:ss[.fraction](Z|±HH:mm), like 2026-03-01T10:00:00Z';
export const RANGE_BOUND_MESSAGE = 'Must be a date (YYYY-MM-DD) or a date-time (YYYY-MM-DDTHH:mm[:ss[.sss]][Z|±HH:mm])';
export const TIME_ZONE_MESSAGE = 'Must be an IANA time zone name, like "America/New_York" or "UTC"';

/** `YYYY-MM-DD`, a real day. */
export const isoDateSchema = z.string().check(z.refine(isIsoDate, invalidFormat(DATE_MESSAGE)));

/** A date-time naming one instant: seconds and an offset (`Z` or `±HH:mm`) required. */
export const isoInstantSchema = z.string().check(z.refine(isIsoInstant, invalidFormat(INSTANT_MESSAGE)));

/** A `dateRange` bound: a date, or a date-time whose offset is optional (a wall time in the request's zone). */
export const rangeBoundSchema = z.string().check(z.refine(isRangeBound, invalidFormat(RANGE_BOUND_MESSAGE)));

/** An IANA time zone, output as the runtime's canonical name for it. Offsets are not zones. */
export const timeZoneSchema = z.pipe(
  z.string(),
  z.transform((name: string, ctx) => {
    const canonical = canonicalTimeZone(name);
    if (canonical === undefined) {
      addTransformIssue(ctx, invalidFormat(TIME_ZONE_MESSAGE));
      return z.NEVER;
    }
    return canonical;
  }),
);
