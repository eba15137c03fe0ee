import { createHash, randomBytes } from 'node:crypto';

/** Every raw key starts with this, so leaked keys are recognisable to secret scanners. */
export const API_KEY_PREFIX = 'upstack_';

/** 32 bytes from the CSPRNG: 256 bits, far beyond guessing, base64url so it survives headers and shells. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/** The only form of a key the store ever holds. */
export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey, 'utf8').digest('hex');
}

/**
 * A cheap shape check before any lookup, so junk never reaches the table. Lengths are loose on
 * purpose: keys minted by older generations of the product are shorter or longer than ours.
 */
export function isWellFormedApiKey(value: string): boolean {
  return /^upstack_[A-Za-z0-9_-]{16,200}$/.test(value);
}

/** Pixel ids are opaque to us (UUIDs and `px_` ids both exist); only the character set is fixed. */
export function isWellFormedPixelId(value: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/.test(value);
}
