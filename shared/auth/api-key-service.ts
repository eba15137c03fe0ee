import { randomBytes } from 'node:crypto';
import { generateApiKey, hashApiKey, isWellFormedPixelId } from './api-key-secret';
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
  now?: Date;
}): Promise<{ apiKey: string; record: ApiKeyRecord }> {
  const now = request.now ?? new Date();
  if (!isWellFormedPixelId(request.pixelId)) throw new InvalidKeyRequestError(`Invalid pixel id '${request.pixelId}'`);
  const unknown = request.scopes.filter((scope) => !isKnownScope(scope));
  if (request.scopes.length === 0) throw new InvalidKeyRequestError('At least one scope is required');
  if (unknown.length > 0) throw new InvalidKeyRequestError(`Unknown scope(s): ${unknown.join(', ')}`);
  let expiresAt: string | undefined;
  if (request.expiresAt !== undefined) {
    const time = Date.parse(request.expiresAt);
    if (Number.isNaN(time)) throw new InvalidKeyRequestError(`Invalid expiry '${request.expiresAt}'; use an ISO 8601 date-time`);
    expiresAt = new Date(time).toISOString();
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
  };
  await saveNewApiKey(record);
  return { apiKey, record };
}
