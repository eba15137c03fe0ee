/**
 * How long the pipeline keeps what it writes, from the environment (README "Retention"). DynamoDB
 * deletes an item within a few days of its `ttl` (epoch seconds); readers treat an item whose
 * `ttl` has passed as absent, so an expired item is never served (dynalite has no TTL at all).
 */
const DAY_S = 86_400;

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}

export const retention = {
  /** Stored events: kept this many days after acceptance (default 400, a year plus a month). */
  eventDays: () => positiveNumber('EVENT_RETENTION_DAYS', 400),
  /** A client eventId is deduplicated against deliveries accepted this many days after the stored one (default 7). */
  dedupDays: () => positiveNumber('DEDUP_RETENTION_DAYS', 7),
  /** A projected log entry stays this many hours for inspection and replay before it expires (default 72). */
  logSafetyHours: () => positiveNumber('LOG_RETENTION_HOURS', 72),
};

export const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** `ttl` of an event page accepted at `acceptedAt`. */
export const eventTtl = (acceptedAt: string) => epochSeconds(new Date(acceptedAt)) + Math.round(retention.eventDays() * DAY_S);

/** `ttl` of the dedup index entry of an eventId whose stored delivery was accepted at `acceptedAt`. */
export const dedupTtl = (acceptedAt: string) => epochSeconds(new Date(acceptedAt)) + Math.round(retention.dedupDays() * DAY_S);

/** `ttl` of a log entry projected at `now`. */
export const logTtl = (now: Date) => epochSeconds(now) + Math.round(retention.logSafetyHours() * 3600);

/** True when an item carries a `ttl` that has passed: DynamoDB may not have deleted it yet. */
export const isExpired = (item: { ttl?: unknown }, now: Date = new Date()) => typeof item.ttl === 'number' && item.ttl <= epochSeconds(now);
