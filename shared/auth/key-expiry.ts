import { isIsoInstant } from '../time/iso-8601';

/**
 * A key's expiry from the text given for it, as stored (`toISOString()`): an ISO 8601 instant
 * (a real date, `T`, `HH:mm:ss`, an optional fraction, then `Z` or `±HH:mm`) in the future.
 * Otherwise the problem, in one sentence. Nothing looser is guessed at: `Date.parse` reads
 * `2030-02-30` as March 2 and `12/31/2030` as a time in the machine's zone, and a key that is
 * expired from the start is a mistake, not a key.
 */
export function parseKeyExpiry(text: string, now: Date): { expiresAt: string } | { problem: string } {
  if (!isIsoInstant(text)) {
    return { problem: `Invalid expiry '${text}': use an ISO 8601 date-time with seconds and an offset, such as 2030-12-31T23:59:59Z` };
  }
  const time = Date.parse(text);
  if (time <= now.getTime()) return { problem: `Invalid expiry '${text}': it is not in the future` };
  return { expiresAt: new Date(time).toISOString() };
}
