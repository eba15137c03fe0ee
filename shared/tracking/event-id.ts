import { randomBytes } from 'node:crypto';

/** Crockford's base32: no I, L, O, U, so ids survive being read aloud or retyped. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A ULID: 48 bits of milliseconds then 80 random bits, 26 characters. Ids sort by time as text,
 * so server-assigned ids keep the store's time order, and collisions need 2^40 ids in one
 * millisecond.
 */
export function newEventId(now: Date = new Date()): string {
  let time = now.getTime();
  let timePart = '';
  for (let i = 0; i < 10; i++) {
    timePart = ALPHABET[time % 32]! + timePart;
    time = Math.floor(time / 32);
  }
  const random = randomBytes(10);
  let bits = 0;
  let bitCount = 0;
  let randomPart = '';
  for (const byte of random) {
    bits = (bits << 8) | byte;
    bitCount += 8;
    while (bitCount >= 5) {
      bitCount -= 5;
      randomPart += ALPHABET[(bits >> bitCount) & 31]!;
    }
    bits &= (1 << bitCount) - 1;
  }
  return timePart + randomPart;
}
