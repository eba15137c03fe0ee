import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NotStartedError, markStoreUnavailable, markWriteOutcomeUnknown } from '../faults';
import { inFinalWrite, noteStoreFault, remainingMs } from '../request-deadline';

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
  // No cap on sockets (the SDK's default is 50): the handler's timeouts start when a call is
  // made, so a call queued for a socket could time out before it was sent, and a write would then
  // look as if it might have committed. A function serves one request at a time, whose calls
  // are bounded by their own concurrency; the local server serves many, each with its own calls.
  const agent = { keepAlive: true, maxSockets: Number.POSITIVE_INFINITY };
  return {
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 500, requestTimeout: attemptTimeoutMs, throwOnRequestTimeout: true, httpAgent: agent, httpsAgent: agent },
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

/** The first pause before an attempt that was never sent is tried again (doubled each time, full jitter). */
const NOT_SENT_FIRST_PAUSE_MS = 20;
const NOT_SENT_MAX_PAUSE_MS = 1_000;

type StoreMiddleware = Parameters<DynamoDBClient['middlewareStack']['addRelativeTo']>[0];

/**
 * Holds every call of `client` to the request's deadline, attempt by attempt (it sits inside the
 * SDK's retry loop): an attempt that could not finish in time is not started, which is a
 * `NotStartedError`, a failure known to have changed nothing. An attempt that failed before it
 * was sent (no connection in time, connection refused) changed nothing either: it is tried again
 * here, with backoff, for as long as the deadline allows, whatever the SDK's own retry budget
 * says (under a burst that budget runs dry, and a request would fail on a write never made). A
 * write that was sent and got no definite answer (no response, or a 5xx) is marked
 * outcome-unknown, and stays so even if a later attempt of the same call is refused or
 * throttled, so it is never reported as a clean 503. Any other failure of a read, or a definite
 * refusal, is a transient store fault (`StoreUnavailableError`) when a retry may fix it.
 */
export function holdToRequestDeadline(client: DynamoDBClient, attemptTimeoutMs: number): void {
  const middleware = (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
    const command = context.commandName ?? '';
    const isWrite = WRITES.test(command);
    const settleByReading = POINT_WRITES.test(command) && !inFinalWrite();
    const state = ((context as Record<symbol, { unknown: boolean }>)[ATTEMPTS] ??= { unknown: false });
    for (let tries = 1; ; tries++) {
      if (remainingMs() < attemptTimeoutMs + SAFETY_MS + (settleByReading ? READ_START_MS : 0)) {
        const error = new NotStartedError(`Not started: too close to the request's deadline for ${command || 'a store call'}`);
        if (state.unknown) markWriteOutcomeUnknown(error);
        throw error;
      }
      try {
        return await next(args);
      } catch (error) {
        if (wasNotSent(error)) {
          noteStoreFault();
          await pauseBeforeResending(tries);
          continue;
        }
        if (isTransientError(error)) noteStoreFault();
        if (isWrite && !isDefiniteRefusal(error)) state.unknown = true;
        if (state.unknown) markWriteOutcomeUnknown(error);
        else if (isTransientError(error)) markStoreUnavailable(error);
        throw error;
      }
    }
  };
  client.middlewareStack.addRelativeTo(middleware as unknown as StoreMiddleware, {
    relation: 'after',
    toMiddleware: 'retryMiddleware',
    name: 'holdToRequestDeadline',
    override: true,
  });
}

/** Full jitter below a doubling cap, and never past the point where another attempt could still start. */
function pauseBeforeResending(tries: number): Promise<void> {
  const cap = Math.min(NOT_SENT_MAX_PAUSE_MS, NOT_SENT_FIRST_PAUSE_MS * 2 ** Math.min(tries - 1, 10));
  const delay = Math.min(Math.random() * cap, Math.max(0, remainingMs() - SAFETY_MS));
  return new Promise((resolve) => setTimeout(resolve, delay));
}

/**
 * Codes of a connection that was never made: the request cannot have reached the store. A reset
 * (ECONNRESET) or a timeout after connecting may come after the request was written, so they
 * are not among them.
 */
const NOT_CONNECTED_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EADDRNOTAVAIL']);

/**
 * The attempt failed before a byte of it was sent: the connection was refused or not made in
 * time. The HTTP handler's connection timeout also covers the wait for a free socket of its
 * pool, and says so in its message; it never fires once a socket is connected.
 */
export function wasNotSent(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NOT_CONNECTED_CODES.has(code)) return true;
  return error.name === 'TimeoutError' && /did not establish a connection/.test(error.message);
}

/** DynamoDB answered with a 4xx (a failed condition, throttling, a bad request): nothing was written. */
function isDefiniteRefusal(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
  return status !== undefined && status >= 400 && status < 500;
}

const TRANSIENT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded', 'InternalServerError', 'ServiceUnavailable']);
const TRANSIENT_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/** A failure a later attempt may not meet: a timeout, a dropped connection, throttling, a 5xx. */
function isTransientError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const meta = error as Error & { code?: string; $retryable?: unknown; $metadata?: { httpStatusCode?: number } };
  const status = meta.$metadata?.httpStatusCode ?? 0;
  return TRANSIENT_NAMES.has(error.name) || TRANSIENT_CODES.has(meta.code ?? '') || meta.$retryable !== undefined || status >= 500;
}
