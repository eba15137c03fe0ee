/**
 * A failure of a dependency that a retry of the same request can repair: a lost optimistic-lock
 * race, a throttled table, an event that the bus did not take. The error responder answers 503
 * with Retry-After for these, and 500 for everything else.
 */
export class RetryableFault extends Error {}

const RETRYABLE_AWS_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
]);

/** AWS SDK errors that mean "try again": throttling and the service's own transient faults. */
export function isRetryableAwsError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const meta = error as Error & { $retryable?: unknown; $fault?: string };
  return RETRYABLE_AWS_ERRORS.has(error.name) || meta.$retryable !== undefined;
}
