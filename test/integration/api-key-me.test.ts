import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/accounts/get-api-key-me';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { effectiveScopes, LEGACY_SCOPES, SCOPES } from '../../shared/auth/scopes';
import { revokeApiKey } from '../../shared/store/api-key-repository';
import { apiEvent, invoke } from '../support/api-event';
import { useFreshTable } from '../support/fresh-table';

const PATH = '/accounts/api/api-keys/me';
const me = (headers: Record<string, string>, query = '') => invoke(handler, apiEvent({ method: 'GET', path: PATH + query, routePath: PATH, headers }));

beforeAll(async () => {
  await useFreshTable();
});

describe('GET /accounts/api/api-keys/me', () => {
  it('describes the calling key: stored scopes as minted, granted scopes expanded; never the hash or hint', async () => {
    const minted = await mintApiKey({ pixelId: 'px_me', scopes: ['db_query', 'dashboards:write'], name: 'nightly export', expiresAt: '2099-01-01T00:00:00.000Z', rateLimit: '100/1m' });

    const response = await me({ 'x-api-key': minted.apiKey, 'x-pixel-id': 'px_me' });

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      apiKey: {
        apiKeyPk: minted.record.apiKeyPk,
        pixelId: 'px_me',
        name: 'nightly export',
        scopes: { stored: ['db_query', 'dashboards:write'], granted: ['analytics:read', 'dashboards:read', 'dashboards:write'] },
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        expiresAt: '2099-01-01T00:00:00.000Z',
        // Its own API quota, and the default events and cost quotas it was minted without.
        rateLimits: {
          api: { quota: 100, windowSeconds: 60, policy: '"api";q=100;w=60' },
          events: { quota: 6000, windowSeconds: 60, policy: '"events";q=6000;w=60' },
          cost: { quota: 3000, windowSeconds: 60, policy: '"cost";q=3000;w=60' },
        },
      },
    });
    expect(response.headers['ratelimit-policy']).toBe(response.body!.apiKey.rateLimits.api.policy);
  });

  it('answers any active key, whatever its scopes, with granted = the expansion of stored', async () => {
    const names = [...SCOPES, ...Object.keys(LEGACY_SCOPES)];
    await fc.assert(
      fc.asyncProperty(fc.subarray(names, { minLength: 1 }), async (scopes) => {
        const minted = await mintApiKey({ pixelId: 'px_me', scopes });
        const { status, body } = await me({ 'x-api-key': minted.apiKey, 'x-pixel-id': 'px_me' });
        expect(status).toBe(200);
        expect(body!.apiKey.scopes.stored).toEqual(scopes);
        expect(new Set(body!.apiKey.scopes.granted)).toEqual(effectiveScopes(scopes));
        expect(body!.apiKey.expiresAt).toBeNull();
      }),
      { numRuns: 15 },
    );
  });

  it('answers 401 to a revoked key, a key of another pixel, and no key; 400 to a query parameter', async () => {
    const minted = await mintApiKey({ pixelId: 'px_me', scopes: ['events:write'] });
    expect((await me({ 'x-api-key': minted.apiKey, 'x-pixel-id': 'px_other' })).status).toBe(401);
    expect((await me({ 'x-pixel-id': 'px_me' })).status).toBe(401);
    expect(await me({ 'x-api-key': minted.apiKey, 'x-pixel-id': 'px_me' }, '?verbose=1')).toMatchObject({
      status: 400,
      body: { errors: [{ key: 'verbose', path: ['query', 'verbose'] }] },
    });
    await revokeApiKey(minted.record.apiKeyPk, new Date());
    expect(await me({ 'x-api-key': minted.apiKey, 'x-pixel-id': 'px_me' })).toMatchObject({ status: 401, body: { message: 'API key has been revoked' } });
  });
});
