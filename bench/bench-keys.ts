/**
 * Bench keys are minted with the largest quota a key can have: the bench measures the service,
 * and a 429 from the key's own quota would measure the quota instead.
 */
export const BENCH_RATE_LIMITS = { rateLimit: '1000000/1s', eventsRateLimit: '1000000/1s' } as const;
export const benchRateLimitArgs = ['--rate-limit', BENCH_RATE_LIMITS.rateLimit, '--events-rate-limit', BENCH_RATE_LIMITS.eventsRateLimit];
