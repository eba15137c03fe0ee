import type { ApiKeyDescription } from '../schemas/api-key';
import type { Principal } from './authenticate';
import { DEFAULT_RATE_LIMITS, RATE_LIMIT_POLICIES, type RateLimitPolicyName } from './rate-limit';
import { SCOPES } from './scopes';

/** The calling key as GET /accounts/api/api-keys/me shows it, from the record authentication already read. */
export function describeApiKey(principal: Principal): ApiKeyDescription {
  return {
    apiKeyPk: principal.apiKeyPk,
    pixelId: principal.pixelId,
    name: principal.key.name,
    scopes: { stored: [...principal.key.scopes], granted: SCOPES.filter((scope) => principal.scopes.has(scope)) },
    createdAt: principal.key.createdAt,
    expiresAt: principal.key.expiresAt ?? null,
    rateLimits: Object.fromEntries(
      RATE_LIMIT_POLICIES.map((policy) => {
        const limit = principal.key.rateLimits?.[policy] ?? DEFAULT_RATE_LIMITS[policy];
        return [policy, { ...limit, policy: `"${policy}";q=${limit.quota};w=${limit.windowSeconds}` }];
      }),
    ) as Record<RateLimitPolicyName, { quota: number; windowSeconds: number; policy: string }>,
  };
}
