/**
 * The error model of the events API (spec 7: "a richer envelope"). Every error answer of
 * POST /tr/api/events is
 *
 *   { message, requestId, error: { code, details: [{ index, path, code, message }] } }
 *
 * `error.code` says what kind of failure it is; each detail is one problem, located by the event's
 * index in the batch and its path from the body root. Both code lists are part of the contract:
 * codes are only ever added, never renamed.
 */
export const EVENTS_ERROR_CODES = {
  /** The body is empty, not valid UTF-8, not JSON, or not a JSON object. */
  malformed_body: 400,
  /** At least one problem in the body or an event; nothing was stored. */
  validation_failed: 400,
  unauthorized: 401,
  /** The key lacks `events:write`, or a body `pixelId` differs from `x-pixel-id`. */
  forbidden: 403,
  /** The Idempotency-Key header is not 1 to 128 characters of letters, digits, `-`, `_`, `.`, `:`. */
  invalid_idempotency_key: 400,
  /** A request with this Idempotency-Key is still in progress; retry after `Retry-After`. */
  idempotency_key_in_use: 409,
  /** The raw body is over 128 KB; it was not parsed. */
  payload_too_large: 413,
  /** This Idempotency-Key was used for a different request. */
  idempotency_key_reused: 422,
  /** The key's events quota for the current window is used up; retry after `Retry-After` seconds. */
  rate_limited: 429,
  internal_error: 500,
  /** Storage failed or timed out; retrying the same request is safe. */
  service_unavailable: 503,
} as const;
export type EventsErrorCode = keyof typeof EVENTS_ERROR_CODES;

/** `details[].code`: what is wrong at that path. */
export const EVENT_PROBLEM_CODES = [
  /** A required key is missing (`name`, `events`, `refunds[].amount`, …). */
  'required',
  /** A key that names JavaScript's object machinery (`__proto__`, `constructor`, `prototype`), anywhere in the body. */
  'forbidden_key',
  /** Objects and arrays nested deeper than the body allows. */
  'too_deep',
  /** The value has the wrong JSON type. */
  'invalid_type',
  /** A key that this object does not allow. */
  'unknown_key',
  /** An empty string or array where one element/character is the minimum (`events: []`). */
  'too_short',
  /** A string or array over its limit (more than 100 events, a name over 100 characters, currency over 10). */
  'too_long',
  /** A number outside its range (a negative value). */
  'out_of_range',
  /** A string not in the required form (name pattern, date-time, email, phone, URL, IP address). */
  'invalid_format',
  /** A value outside an enumeration (`financialStatus`). */
  'invalid_value',
  /** A custom `data` (or item) value that is an object or a nested array. */
  'nested_value',
  /** `timestamp` more than 5 minutes after the request was received. */
  'timestamp_in_future',
  /** `timestamp` more than 730 days before the request was received. */
  'timestamp_too_old',
] as const;
export type EventProblemCode = (typeof EVENT_PROBLEM_CODES)[number];

export interface EventProblem {
  /** The event's position in `events` (0 for the single-event form); `null` for the body as a whole. */
  index: number | null;
  /** From the body root, array indexes as strings: `["events","3","data","currency"]`. */
  path: string[];
  code: EventProblemCode;
  message: string;
}

/** At most this many details are listed; the message says how many there were. */
export const MAX_DETAILS = 100;

/** Thrown by validation; the events error responder turns it into the 400. */
export class EventsValidationError extends Error {
  constructor(readonly problems: EventProblem[]) {
    const count = problems.length;
    super(
      count > MAX_DETAILS
        ? `${count} problems in the request; the first ${MAX_DETAILS} are listed. Nothing was stored`
        : `${count} problem${count === 1 ? '' : 's'} in the request. Nothing was stored`,
    );
  }
}

export interface EventsErrorBody {
  message: string;
  requestId: string;
  error: { code: EventsErrorCode; details: EventProblem[] };
}
