import { createHash } from 'node:crypto';

/**
 * Customer identity as the store keeps it. Emails and phone numbers are personal data: they are
 * normalised so the same person hashes the same way whichever system sent them, then only the
 * SHA-256 hex of the normal form is kept. The raw values never leave the request.
 *
 * The normal forms are the ones ad platforms hash (Meta CAPI, TikTok Events API), so a hash can be
 * matched there without ever holding the raw value again.
 */

/** RFC 5321's limit on a whole address. */
const EMAIL_MAX_LENGTH = 254;
/**
 * Deliberately loose: one `@` with something on each side and no whitespace. Stricter patterns
 * reject real addresses (quoted local parts, IDN domains) and catch no real mistake this misses.
 */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+$/;

/** Trimmed and lower-cased. Gmail dots and `+tags` are kept: they are part of the address elsewhere. */
export function normalizeEmail(raw: string): string | undefined {
  const email = raw.trim().toLowerCase();
  return email.length <= EMAIL_MAX_LENGTH && EMAIL_SHAPE.test(email) ? email : undefined;
}

/** Formatting people type around numbers: spaces, dashes, dots, parentheses. */
const PHONE_FORMATTING = /[\s\-.()]/g;
/** E.164 allows at most 15 digits; fewer than 6 is no callable number anywhere. */
const PHONE_SHAPE = /^\+?[0-9]{6,15}$/;

/**
 * Formatting removed, a leading `+` kept: `+1 (415) 555-0100` becomes `+14155550100`. A number sent
 * without its country code stays without one (it cannot be guessed), so clients should send E.164.
 */
export function normalizePhone(raw: string): string | undefined {
  const phone = raw.trim().replace(PHONE_FORMATTING, '');
  return PHONE_SHAPE.test(phone) ? phone : undefined;
}

export function sha256Hex(normalized: string): string {
  return createHash('sha256').update(normalized, 'utf8').digest('hex');
}

/** The hashes of valid values, each once, in first-seen order. Invalid values were rejected by validation. */
export function hashAll(values: readonly string[] | undefined, normalize: (raw: string) => string | undefined): string[] {
  const hashes = new Set<string>();
  for (const value of values ?? []) {
    const normal = normalize(value);
    if (normal !== undefined) hashes.add(sha256Hex(normal));
  }
  return [...hashes];
}
