/**
 * Bench keys are minted with the largest quota a key can have: the bench measures the service,
 * and a 429 from the key's own quota would measure the quota instead. The window is a minute, the
 * default keys' own: with a window of one second every request that came as one closed paid two or
 * three counting calls instead of one (1,688 counting calls for 1,200 requests in the ingestion
 * benchmark's projection case), which a key with the default window almost never pays.
 */
export const BENCH_RATE_LIMITS = { rateLimit: '1000000/1m', eventsRateLimit: '1000000/1m', costLimit: '1000000/1m' } as const;
export const benchRateLimitArgs = [
  '--rate-limit',
  BENCH_RATE_LIMITS.rateLimit,
  '--events-rate-limit',
  BENCH_RATE_LIMITS.eventsRateLimit,
  '--cost-limit',
  BENCH_RATE_LIMITS.costLimit,
];
