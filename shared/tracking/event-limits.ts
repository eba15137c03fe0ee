/** Limits of POST /tr/api/events: spec section 8 (body, batch) and the bounds this API chose (README). */
export const EVENT_LIMITS = {
  /** 128 KB, counted in bytes of the raw body as sent. */
  bodyBytes: 128 * 1024,
  batchMin: 1,
  batchMax: 100,
  eventIdLength: 128,
  urlLength: 8192,
  titleLength: 2048,
  clickIdLength: 1000,
  items: 200,
  customArrayItems: 100,
  /** Clocks drift; an event stamped a little ahead of our receipt time is still believable. */
  maxFutureMs: 5 * 60_000,
  /** Older than this is a replayed or corrupt timestamp, not a late event; history goes through the order import. */
  maxAgeMs: 730 * 24 * 3_600_000,
} as const;
