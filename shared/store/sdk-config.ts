import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NotStartedError, markWriteOutcomeUnknown } from '../faults';
import { inFinalWrite, remainingMs } from '../request-deadline';

/**
 * How long one attempt of one store call may take. Point calls (one item) are fast, so a slow one
 * is cut short and retried; bulk calls (a batch of up to 100 items, a page of a query, up to a few
 * MB) get more. The SDK makes up to 3 attempts, retrying throttling and transient faults with its
 * own jittered backoff. Without `throwOnRequestTimeout` the SDK only logs a slow request and keeps
 * waiting.
 */
export const POINT_ATTEMPT_TIMEOUT_MS = 1_000;
export const BULK_ATTEMPT_TIMEOUT_MS = 4_000;

export function storeClientConfig(attemptTimeoutMs: number) {
  return {
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 500, requestTimeout: attemptTimeoutMs, throwOnRequestTimeout: true },
    base64Decoder: decodeBase64,
  };
}

/**
 * Binary attributes as the store sends them, decoded without the SDK's default check: it runs a
 * regular expression over every base64 string first, which for a query reading thousands of
 * packed copies (megabytes of base64) cost as much as inflating them. The store is trusted and
 * its JSON already parsed, so a malformed string can only come from a broken store.
 */
export function decodeBase64(text: string): Uint8Array {
  const buffer = Buffer.from(text, 'base64');
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** An attempt starts only if it can time out and still leave this much before the deadline. */
const SAFETY_MS = 300;
/** Time a point read attempt needs. */
export const READ_START_MS = POINT_ATTEMPT_TIMEOUT_MS + SAFETY_MS;
/**
 * Time a point write attempt needs: its own, plus a read after it, so that a write whose answer
 * is lost can still be settled by reading what is stored before the deadline.
 */
export const WRITE_START_MS = 2 * READ_START_MS;

const POINT_WRITES = /^(Put|Update|Delete)/;
const WRITES = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;
const ATTEMPTS = Symbol('attempts');

type StoreMiddleware = Parameters<DynamoDBClient['middlewareStack']['addRelativeTo']>[0];

/**
 * Holds every call of `client` to the request's deadline, attempt by attempt (it sits inside the
 * SDK's retry loop): an attempt that could not finish in time is not started, which is a
 * `NotStartedError`, a failure known to have changed nothing. A write that was sent and got no
 * definite answer (no response, or a 5xx) is marked outcome-unknown, and stays so even if a later
 * attempt of the same call is refused or throttled, so it is never reported as a clean 503.
 */
export function holdToRequestDeadline(client: DynamoDBClient, attemptTimeoutMs: number): void {
  const middleware = (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
    const command = context.commandName ?? '';
    const isWrite = WRITES.test(command);
    const settleByReading = POINT_WRITES.test(command) && !inFinalWrite();
    const state = ((context as Record<symbol, { unknown: boolean }>)[ATTEMPTS] ??= { unknown: false });
    if (remainingMs() < attemptTimeoutMs + SAFETY_MS + (settleByReading ? READ_START_MS : 0)) {
      const error = new NotStartedError(`Not started: too close to the request's deadline for ${command || 'a store call'}`);
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
