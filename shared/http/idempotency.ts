import { createHash } from 'node:crypto';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { logger } from '../config/logger';
import { asFinalWrite, remainingMs } from '../request-deadline';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  type IdempotencyScope,
  type StoredResponse,
} from '../store/idempotency-repository';
import { issueAt } from './errors';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError, InvalidIdempotencyKeyError } from './idempotency-errors';

/**
 * The `Idempotency-Key` header of write routes (those the route table marks `writes`). It runs
 * around the handler, after authentication, scope, body parsing and validation, so a 401, 403 or
 * 400 is answered as usual and never recorded: only a request that reaches the handler claims
 * its key.
 *
 * - No header: the request runs as it always did.
 * - First use of a key: the request runs; a success (2xx) is recorded for the retention window
 *   and answered; a failure releases the key, so a retry runs again.
 * - The same key again, with the same request (route, path parameters, query and body, compared
 *   as JSON values): the recorded response, unchanged, with `Idempotent-Replayed: true`; nothing
 *   runs, so nothing changes.
 * - The same key with another request: 422. While the first is still running: 409, Retry-After 1.
 *
 * Keys are scoped to the pixel and the route. Hand-written rather than Powertools' idempotency
 * utility: its DynamoDB layer keeps every record of a function under one static partition key
 * (one hot partition for all merchants instead of one per pixel, as this table is laid out),
 * prefixes keys with the function name from the environment (one process serves every route
 * locally), compares the raw body text rather than the JSON value, and turns a failure to record
 * a response into a failed request although the write committed.
 */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;
/** How long a key is remembered: a retry within this window replays, a later one runs anew. */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 60 * 60;
/** A claim outlives its request by this much when the request cannot say when it ends. */
const DEFAULT_LEASE_MS = 30_000;

export { IdempotencyKeyInUseError, IdempotencyKeyReusedError, InvalidIdempotencyKeyError };

export interface IdempotentRequest {
  headers: Record<string, string | undefined>;
  pixelId: string;
  /** The route as the route table names it: `PUT /accounts/api/account/settings/order`. */
  route: string;
  /** Everything that makes two requests the same request (see `requestContent`). */
  content: unknown;
  receivedAt: Date;
}

/** What two requests of one route must share to be the same request: path parameters, query and body. */
export function requestContent(event: APIGatewayProxyEventV2, parsedBody: unknown): unknown {
  return { path: event.pathParameters ?? {}, query: event.queryStringParameters ?? {}, body: parsedBody ?? event.body ?? null };
}

export async function runIdempotently(request: IdempotentRequest, run: () => Promise<StoredResponse>): Promise<StoredResponse> {
  const key = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (key === undefined) return run();
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
    const message = 'Idempotency-Key must be 1 to 128 characters of letters, digits, "-", "_", "." and ":"';
    throw new InvalidIdempotencyKeyError(message, [issueAt(['headers', IDEMPOTENCY_KEY_HEADER], message)]);
  }
  const scope: IdempotencyScope = { pixelId: request.pixelId, route: request.route, key };
  const fingerprint = fingerprintOf(request.content);
  const remaining = remainingMs();
  const claim = await claimIdempotencyKey(scope, {
    fingerprint,
    now: request.receivedAt,
    retentionSeconds: IDEMPOTENCY_RETENTION_SECONDS,
    leaseMs: (Number.isFinite(remaining) ? Math.max(0, remaining) : DEFAULT_LEASE_MS) + 1_000,
  });

  if (claim.kind !== 'claimed') {
    if (claim.fingerprint !== fingerprint) {
      throw new IdempotencyKeyReusedError('This Idempotency-Key was already used for a different request; use a new key for a new request');
    }
    if (claim.kind === 'in_progress') {
      throw new IdempotencyKeyInUseError('A request with this Idempotency-Key is still in progress; retry after a moment to get its response');
    }
    return { ...claim.response, headers: { ...claim.response.headers, 'idempotent-replayed': 'true' } };
  }

  let response: StoredResponse;
  try {
    response = await run();
  } catch (error) {
    await asFinalWrite(() => releaseIdempotencyKey(scope, claim.token)).catch((releaseError: unknown) =>
      logger.warn('Could not release an idempotency key; it frees itself when its lease ends', { error: releaseError }),
    );
    throw error;
  }
  try {
    await asFinalWrite(() => completeIdempotencyKey(scope, claim.token, response));
  } catch (error) {
    // The write committed: its answer is the truth. A retry meets the claim until its lease
    // ends (409), then runs again.
    logger.warn('Could not record the response of an idempotent request', { error });
  }
  return response;
}

/** SHA-256 of the content as canonical JSON (object keys sorted), so formatting never matters. */
export function fingerprintOf(content: unknown): string {
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, member]) => member !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([name, member]) => `${JSON.stringify(name)}:${canonicalJson(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
