import { beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from '../../shared/auth/authenticate';
import { mintApiKey, InvalidKeyRequestError } from '../../shared/auth/api-key-service';
import { API_KEY_PREFIX, hashApiKey } from '../../shared/auth/api-key-secret';
import { findApiKeyByHash, listApiKeys, revokeApiKey } from '../../shared/store/api-key-repository';
import { useFreshTable } from '../support/fresh-table';

beforeAll(async () => {
  await useFreshTable();
});

const headersFor = (apiKey: string, pixelId: string) => ({ 'x-api-key': apiKey, 'x-pixel-id': pixelId });

describe('API keys (real SDK, dynalite)', () => {
  it('mints a prefixed high-entropy key and stores only its hash', async () => {
    const { apiKey, record } = await mintApiKey({ pixelId: 'px_keys', scopes: ['account:write'], name: 'ops' });

    expect(apiKey.startsWith(API_KEY_PREFIX)).toBe(true);
    expect(Buffer.from(apiKey.slice(API_KEY_PREFIX.length), 'base64url')).toHaveLength(32);
    const stored = await findApiKeyByHash(hashApiKey(apiKey));
    expect(stored).toEqual(record);
    expect(JSON.stringify(stored)).not.toContain(apiKey.slice(API_KEY_PREFIX.length, -4));
  });

  it('authenticates a key for its own pixel with its effective scopes', async () => {
    const { apiKey, record } = await mintApiKey({ pixelId: 'px_keys', scopes: ['db_query', 'dashboards:write'] });
    const principal = await authenticate(headersFor(apiKey, 'px_keys'), new Date());
    expect(principal).toEqual({
      apiKeyPk: record.apiKeyPk,
      pixelId: 'px_keys',
      scopes: new Set(['analytics:read', 'dashboards:write', 'dashboards:read']),
      key: { name: '', scopes: ['db_query', 'dashboards:write'], createdAt: record.createdAt },
      rateLimit: { policy: 'api', limit: { quota: 1200, windowSeconds: 60 }, count: 1, resetAt: expect.any(Number) },
    });
  });

  it('rejects the key for another pixel, after expiry and after revocation', async () => {
    const { apiKey, record } = await mintApiKey({ pixelId: 'px_keys', scopes: ['account:read'], expiresAt: '2030-01-01T00:00:00Z' });

    await expect(authenticate(headersFor(apiKey, 'px_other'), new Date())).rejects.toMatchObject({ statusCode: 401 });
    await expect(authenticate(headersFor(apiKey, 'px_keys'), new Date('2030-01-01T00:00:00Z'))).rejects.toThrow('API key has expired');

    await revokeApiKey(record.apiKeyPk, new Date());
    await expect(authenticate(headersFor(apiKey, 'px_keys'), new Date())).rejects.toThrow('API key has been revoked');
  });

  it('lists the keys of one pixel only, and reports unknown ids on revoke', async () => {
    const { record } = await mintApiKey({ pixelId: 'px_listed', scopes: ['events:write'] });
    await mintApiKey({ pixelId: 'px_unlisted', scopes: ['events:write'] });

    expect((await listApiKeys('px_listed')).map((key) => key.apiKeyPk)).toEqual([record.apiKeyPk]);
    expect(await revokeApiKey('ak_missing', new Date())).toBeUndefined();
  });

  it.each([
    [{ pixelId: 'px 1', scopes: ['account:read'] }, /pixel id/],
    [{ pixelId: 'px_1', scopes: [] }, /At least one scope/],
    [{ pixelId: 'px_1', scopes: ['account:admin'] }, /Unknown scope/],
    [{ pixelId: 'px_1', scopes: ['account:read'], expiresAt: 'next week' }, /Invalid expiry/],
    [{ pixelId: 'px_1', scopes: ['account:read'], rateLimit: '0/1m' }, /Invalid rate limit '0\/1m'/],
    [{ pixelId: 'px_1', scopes: ['account:read'], eventsRateLimit: '100 per minute' }, /Invalid rate limit/],
    [{ pixelId: 'px_1', scopes: ['account:read'], rateLimit: '10/2d' }, /a window of 1 s to 1 d/],
  ])('refuses to mint %j', async (request, message) => {
    await expect(mintApiKey(request)).rejects.toThrow(InvalidKeyRequestError);
    await expect(mintApiKey(request)).rejects.toThrow(message);
  });
});
