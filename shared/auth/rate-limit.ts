/**
 * Per-key quotas. Each key has one quota for the API and one for the events API (a pixel's
 * tracking traffic must never starve its own dashboards, nor the other way round), each a number
 * of requests per fixed window, and a cost quota for the analytics queries: the cost units of
 * their prices (analytics/request-cost.ts) per window, so a key sending requests priced near the
 * caps runs out long before its request quota. A window opens with the first request after the
 * previous one closed and lasts `windowSeconds`; every request in it, answered or refused, counts
 * once against its request quota, and an analytics query that was priced counts its units.
 *
 * Counting is one atomic UpdateItem on the key's own item, the same round trip that reads the key
 * (store/api-key-repository.ts `admitRequest`), so it holds across every Lambda instance and is
 * exact under concurrency: of N + k simultaneous requests on a quota of N, exactly k are refused.
 *
 * Headers follow the IETF httpapi draft "RateLimit header fields for HTTP" (structured fields):
 * `RateLimit-Policy: "api";q=1200;w=60` and `RateLimit: "api";r=1187;t=42`, `r` the requests left
 * in the window and `t` the seconds until it closes; a 429 adds `Retry-After: <t>`.
 */
export const RATE_LIMIT_POLICIES = ['api', 'events', 'cost'] as const;
export type RateLimitPolicyName = (typeof RATE_LIMIT_POLICIES)[number];

export interface RateLimit {
  quota: number;
  windowSeconds: number;
}

/**
 * Below the stage-wide throttle (100 requests/s), so one key cannot take the whole stage; the
 * events quota admits a pixel sending a 100-event batch every 10 ms for a minute. The cost quota
 * admits a dashboard's hundreds of small queries a minute, or about a dozen priced at the caps.
 */
export const DEFAULT_RATE_LIMITS: Readonly<Record<RateLimitPolicyName, RateLimit>> = {
  api: { quota: 1_200, windowSeconds: 60 },
  events: { quota: 6_000, windowSeconds: 60 },
  cost: { quota: 3_000, windowSeconds: 60 },
};

export const RATE_LIMIT_BOUNDS = { maxQuota: 1_000_000, maxWindowSeconds: 86_400 } as const;

/** The events API has its own quota; every other route shares the key's API quota. */
export function policyForRoute(route: { path: string }): Exclude<RateLimitPolicyName, 'cost'> {
  return route.path.startsWith('/tr/') ? 'events' : 'api';
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3_600, d: 86_400 };

/** Reads `<requests>/<window>` as the keys CLI takes it: `100/1m`, `10/s`, `5000/60s`, `20000/1h`. */
export function parseRateLimit(text: string): RateLimit | undefined {
  const match = /^(\d{1,7})\/(\d{1,5})?([smhd])$/.exec(text.trim());
  if (!match) return undefined;
  const quota = Number(match[1]);
  const windowSeconds = Number(match[2] ?? 1) * UNIT_SECONDS[match[3]!]!;
  if (quota < 1 || quota > RATE_LIMIT_BOUNDS.maxQuota || windowSeconds < 1 || windowSeconds > RATE_LIMIT_BOUNDS.maxWindowSeconds) return undefined;
  return { quota, windowSeconds };
}

export const formatRateLimit = (limit: RateLimit) => `${limit.quota}/${limit.windowSeconds}s`;

/** Where a key stands in its current window, after counting this request. */
export interface RateLimitState {
  policy: RateLimitPolicyName;
  limit: RateLimit;
  /** What the window has counted with this request: requests, or cost units for the cost quota. */
  count: number;
  /** When the window closes, epoch milliseconds. */
  resetAt: number;
}

export const isOverQuota = (state: RateLimitState) => state.count > state.limit.quota;

/**
 * The headers for the quotas a request counted against, one list member per policy (the request
 * quota first, then the cost quota of a priced query); `Retry-After` when one is exceeded.
 */
export function rateLimitHeaders(states: RateLimitState | readonly RateLimitState[], now: number): Record<string, string> {
  const list = Array.isArray(states) ? states : [states as RateLimitState];
  const resetSeconds = (state: RateLimitState) => Math.max(0, Math.ceil((state.resetAt - now) / 1000));
  const exceeded = list.filter(isOverQuota);
  return {
    'ratelimit-policy': list.map((state) => `"${state.policy}";q=${state.limit.quota};w=${state.limit.windowSeconds}`).join(', '),
    ratelimit: list.map((state) => `"${state.policy}";r=${Math.max(0, state.limit.quota - state.count)};t=${resetSeconds(state)}`).join(', '),
    ...(exceeded.length > 0 ? { 'retry-after': String(Math.max(1, ...exceeded.map(resetSeconds))) } : {}),
  };
}
