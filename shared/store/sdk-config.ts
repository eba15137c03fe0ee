import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NotStartedError, markWriteOutcomeUnknown } from '../faults';
import { inFinalWrite, remainingMs } from '../request-deadline';

/**
 * How long one attempt of one store call may take, and how many attempts the SDK makes (it
 * retries throttling and transient faults with its own jittered backoff). Without
 * `throwOnRequestTimeout` the SDK only logs a slow request and keeps waiting.
 */
export const ATTEMPT_TIMEOUT_MS = 1_000;
export const storeClientConfig = {
  maxAttempts: 3,
  requestHandler: { connectionTimeout: 500, requestTimeout: ATTEMPT_TIMEOUT_MS, throwOnRequestTimeout: true },
};

/** An attempt starts only if it can time out and still leave this much before the deadline. */
const SAFETY_MS = 300;
/** Time a read attempt needs. */
export const READ_START_MS = ATTEMPT_TIMEOUT_MS + SAFETY_MS;
/**
 * Time a write attempt needs: its own, plus a read after it, so that a write whose answer is lost
 * can still be resolved by reading what is stored before the deadline.
 */
export const WRITE_START_MS = 2 * READ_START_MS;

const WRITE_COMMANDS = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;
const ATTEMPTS = Symbol('attempts');

type StoreMiddleware = Parameters<DynamoDBClient['middlewareStack']['addRelativeTo']>[0];

/**
 * Holds every store call to the request's deadline, attempt by attempt (it sits inside the SDK's
 * retry loop): an attempt that could not finish in time is not started, which is a
 * `NotStartedError`, a failure known to have changed nothing. A write that was sent and got no
 * definite answer (no response, or a 5xx) is marked outcome-unknown, and stays so even if a later
 * attempt of the same call is refused or throttled, so it is never reported as a clean 503.
 */
export function holdToRequestDeadline(client: DynamoDBClient): void {
  const middleware = (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      const isWrite = WRITE_COMMANDS.test(context.commandName ?? '');
      const state = ((context as Record<symbol, { unknown: boolean }>)[ATTEMPTS] ??= { unknown: false });
      if (remainingMs() < (isWrite && !inFinalWrite() ? WRITE_START_MS : READ_START_MS)) {
        const error = new NotStartedError(`Not started: too close to the request's deadline for ${context.commandName ?? 'a store call'}`);
        if (state.unknown) markWriteOutcomeUnknown(error);
        throw error;
      }
      try {
        return await next(args);
      } catch (error) {
        if (isWrite && !isDefiniteRefusal(error)) state.unknown = true;
        if (state.unknown) markWriteOutcomeUnknown(error);
        throw error;
      }
  };
  client.middlewareStack.addRelativeTo(middleware as unknown as StoreMiddleware, {
    relation: 'after',
    toMiddleware: 'retryMiddleware',
    name: 'holdToRequestDeadline',
    override: true,
  });
}

/** DynamoDB answered with a 4xx (a failed condition, throttling, a bad request): nothing was written. */
function isDefiniteRefusal(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
  return status !== undefined && status >= 400 && status < 500;
}
