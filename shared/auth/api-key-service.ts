import { randomBytes } from 'node:crypto';
import { generateApiKey, hashApiKey, isWellFormedPixelId } from './api-key-secret';
import { parseKeyExpiry } from './key-expiry';
import { DEFAULT_RATE_LIMITS, formatRateLimit, parseRateLimit, RATE_LIMIT_BOUNDS, type RateLimit, type RateLimitPolicyName } from './rate-limit';
import { isKnownScope } from './scopes';
import { saveNewApiKey, type ApiKeyRecord } from '../store/api-key-repository';

export class InvalidKeyRequestError extends Error {}

/**
 * Mints a key for one pixel. The raw key is returned to the caller exactly once and never
 * stored; the store keeps its SHA-256 and the metadata.
 */
export async function mintApiKey(request: {
  pixelId: string;
  scopes: string[];
  name?: string;
  expiresAt?: string;
  /** `<requests>/<window>` (rate-limit.ts `parseRateLimit`); the default when absent. */
  rateLimit?: string;
  eventsRateLimit?: string;
  /** `<units>/<window>`: the cost quota of the analytics queries. */
  costLimit?: string;
  now?: Date;
}): Promise<{ apiKey: string; record: ApiKeyRecord }> {
  const now = request.now ?? new Date();
  if (!isWellFormedPixelId(request.pixelId)) throw new InvalidKeyRequestError(`Invalid pixel id '${request.pixelId}'`);
  const unknown = request.scopes.filter((scope) => !isKnownScope(scope));
  if (request.scopes.length === 0) throw new InvalidKeyRequestError('At least one scope is required');
  if (unknown.length > 0) throw new InvalidKeyRequestError(`Unknown scope(s): ${unknown.join(', ')}`);
  let expiresAt: string | undefined;
  if (request.expiresAt !== undefined) {
    const expiry = parseKeyExpiry(request.expiresAt, now);
    if ('problem' in expiry) throw new InvalidKeyRequestError(expiry.problem);
    expiresAt = expiry.expiresAt;
  }

  const rateLimits: Partial<Record<RateLimitPolicyName, RateLimit>> = {};
  for (const [policy, text] of [['api', request.rateLimit], ['events', request.eventsRateLimit], ['cost', request.costLimit]] as const) {
    if (text === undefined) continue;
    const limit = parseRateLimit(text);
    if (!limit) {
      throw new InvalidKeyRequestError(
        `Invalid rate limit '${text}'; use <requests>/<window> like 100/1m, 10/s or 5000/1h (1 to ${RATE_LIMIT_BOUNDS.maxQuota.toLocaleString('en-US')} requests, a window of 1 s to 1 d)`,
      );
    }
    rateLimits[policy] = limit;
  }

  const apiKey = generateApiKey();
  const record: ApiKeyRecord = {
    apiKeyPk: `ak_${randomBytes(12).toString('hex')}`,
    keyHash: hashApiKey(apiKey),
    pixelId: request.pixelId,
    name: request.name ?? '',
    scopes: [...new Set(request.scopes)],
    hint: apiKey.slice(-4),
    createdAt: now.toISOString(),
    ...(expiresAt ? { expiresAt } : {}),
    ...(Object.keys(rateLimits).length > 0 ? { rateLimits } : {}),
  };
  await saveNewApiKey(record);
  return { apiKey, record };
}

/** A key's quotas as enforced: its own where it was minted with one, the defaults elsewhere. */
export function effectiveRateLimits(record: Pick<ApiKeyRecord, 'rateLimits'>): Record<RateLimitPolicyName, string> {
  return {
    api: formatRateLimit(record.rateLimits?.api ?? DEFAULT_RATE_LIMITS.api),
    events: formatRateLimit(record.rateLimits?.events ?? DEFAULT_RATE_LIMITS.events),
    cost: formatRateLimit(record.rateLimits?.cost ?? DEFAULT_RATE_LIMITS.cost),
  };
}
