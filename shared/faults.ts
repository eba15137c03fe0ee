/**
 * A failure of a dependency that a retry of the same request can repair, and that is known to
 * have changed nothing: a lost optimistic-lock race, a throttled table, a store call that was
 * not started because the request's deadline was too close. The error responder answers 503
 * with Retry-After for these, and 500 for everything else.
 */
export class RetryableFault extends Error {}

/** A store call refused to start: too little time was left to finish it before the request's deadline. */
export class NotStartedError extends RetryableFault {}

/**
 * A write was sent and no definite answer came back (a timeout, a dropped connection, a 5xx):
 * it may or may not have committed. Never a 503, since a 503 promises that nothing happened.
 * Services resolve it by re-reading what they wrote; this is what is left when they cannot.
 */
export class WriteOutcomeUnknownError extends Error {}

const WRITE_OUTCOME = Symbol.for('merchant-analytics.writeOutcome');
const STORE_UNAVAILABLE = Symbol.for('merchant-analytics.storeUnavailable');

/** Marks an SDK error from a write whose outcome is unknown (see `store/sdk-config.ts`). */
export function markWriteOutcomeUnknown(error: unknown): void {
  if (error instanceof Error) Object.defineProperty(error, WRITE_OUTCOME, { value: 'unknown', configurable: true });
}

/**
 * Marks an SDK error of a store call that changed nothing and may pass if tried again: a read
 * that timed out or met a dropped connection, a refusal for throttling (see `store/sdk-config.ts`).
 */
export function markStoreUnavailable(error: unknown): void {
  if (error instanceof Error) Object.defineProperty(error, STORE_UNAVAILABLE, { value: true, configurable: true });
}

/** True for a write that may have committed although it failed. */
export function isWriteOutcomeUnknown(error: unknown): boolean {
  return error instanceof WriteOutcomeUnknownError || (error instanceof Error && (error as never)[WRITE_OUTCOME] === 'unknown');
}

const RETRYABLE_AWS_ERRORS = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TransactionConflictException',
]);

/**
 * AWS SDK errors that mean "try again" and changed nothing: throttling, the service's own
 * transient faults and store calls marked unavailable, except a write that may have committed
 * all the same.
 */
export function isRetryableAwsError(error: unknown): boolean {
  if (!(error instanceof Error) || isWriteOutcomeUnknown(error)) return false;
  const meta = error as Error & { $retryable?: unknown; $fault?: string; [STORE_UNAVAILABLE]?: boolean };
  return RETRYABLE_AWS_ERRORS.has(error.name) || meta.$retryable !== undefined || meta[STORE_UNAVAILABLE] === true;
}
