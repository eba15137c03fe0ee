import { ForbiddenError, UnauthorizedError } from '../http/errors';
import { RetryableFault, isWriteOutcomeUnknown } from '../faults';
import { retryUntilCommitted } from '../retry-until-committed';
import { admitRequest, type ApiKeyRecord } from '../store/api-key-repository';
import type { RateLimitPolicyName, RateLimitState } from './rate-limit';
import { hashApiKey, isWellFormedApiKey, isWellFormedPixelId } from './api-key-secret';
import { effectiveScopes, type Scope } from './scopes';

/** Who is calling: what the handlers may know about the key, never the key itself. */
export interface Principal {
  apiKeyPk: string;
  pixelId: string;
  scopes: ReadonlySet<Scope>;
  /** This request counted against the key's quota for the route's policy. */
  rateLimit: RateLimitState;
  /** The key's record as stored, less its hash: read anyway to authenticate, so introspection costs no second read. */
  key: { name: string; scopes: readonly string[]; createdAt: string; expiresAt?: string; rateLimits?: ApiKeyRecord['rateLimits'] };
}

/**
 * Resolves the two auth headers to a principal, or fails with 401. The checks run in the order
 * the architecture fixes: headers present and well-formed, then key found, active, unexpired and
 * bound to the requested pixel. The key is read by the write that counts the request against its
 * quota (rate-limit.ts), which always sees the latest item, so a revocation takes effect on the
 * very next request. Whether the quota is exceeded is the caller's to decide, after the key is
 * known to be valid: an invalid key is a 401 however often it is tried.
 */
export async function authenticate(
  headers: Record<string, string | undefined>,
  now: Date,
  policy: RateLimitPolicyName = 'api',
): Promise<Principal> {
  const rawKey = headers['x-api-key'];
  const pixelId = headers['x-pixel-id'];
  if (!rawKey) throw new UnauthorizedError('Missing x-api-key header');
  if (!pixelId) throw new UnauthorizedError('Missing x-pixel-id header');
  if (!isWellFormedApiKey(rawKey)) throw new UnauthorizedError('Invalid API key');
  if (!isWellFormedPixelId(pixelId)) throw new UnauthorizedError('Invalid x-pixel-id header');

  const admitted = await countAgainstQuota(hashApiKey(rawKey), policy, now.getTime());
  if (!admitted) throw new UnauthorizedError('Invalid API key');
  const key = admitted.record;
  if (key.revokedAt) throw new UnauthorizedError('API key has been revoked');
  if (key.expiresAt && Date.parse(key.expiresAt) <= now.getTime()) {
    throw new UnauthorizedError('API key has expired');
  }
  if (key.pixelId !== pixelId) throw new UnauthorizedError('API key is not valid for this pixel');

  return {
    apiKeyPk: key.apiKeyPk,
    pixelId: key.pixelId,
    scopes: effectiveScopes(key.scopes),
    key: {
      name: key.name,
      scopes: key.scopes,
      createdAt: key.createdAt,
      ...(key.expiresAt ? { expiresAt: key.expiresAt } : {}),
      ...(key.rateLimits ? { rateLimits: key.rateLimits } : {}),
    },
    rateLimit: admitted.rateLimit,
  };
}

/**
 * The key's read and the count of `amount` against one of its quotas (`admitRequest`), repeated
 * when the count's outcome is unknown: counting twice is harmless, failing the request on
 * bookkeeping is not. When time runs out it is a 503 (retry), not a 500: nothing but, at most,
 * that count was stored.
 */
export async function countAgainstQuota(keyHash: string, policy: RateLimitPolicyName, now: number, amount = 1): ReturnType<typeof admitRequest> {
  try {
    return await retryUntilCommitted(() => admitRequest(keyHash, policy, now, amount), { isConflict: () => false });
  } catch (error) {
    if (isWriteOutcomeUnknown(error)) throw new RetryableFault('The request could not be counted against its key\'s quota', { cause: error });
    throw error;
  }
}

/** 403 when the key lacks the route's scope; `null` marks an ungated route (any active key). */
export function authorize(principal: Principal, required: Scope | null): void {
  if (required !== null && !principal.scopes.has(required)) {
    throw new ForbiddenError(`This API key does not have the '${required}' scope`);
  }
}
