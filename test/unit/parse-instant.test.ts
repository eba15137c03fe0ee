import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseInstant } from '../../shared/time/iso-8601';

describe('parseInstant', () => {
  it('reads every toISOString() form exactly as Date.parse does', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) }), (ms) => {
        const text = new Date(ms).toISOString();
        expect(parseInstant(text)).toBe(ms);
        expect(parseInstant(text)).toBe(Date.parse(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('agrees with Date.parse on near misses and other forms', () => {
    const cases = [
      '2026-02-29T00:00:00.000Z',
      '2024-02-29T00:00:00.000Z',
      '2100-02-29T12:00:00.000Z',
      '2000-02-29T12:00:00.000Z',
      '2026-04-31T00:00:00.000Z',
      '2026-13-01T00:00:00.000Z',
      '2026-00-10T00:00:00.000Z',
      '2026-01-00T00:00:00.000Z',
      '2026-01-01T24:00:00.000Z',
      '2026-01-01T23:60:00.000Z',
      '2026-01-01T23:59:60.000Z',
      '2026-01-01T23:59:59.999Z',
      '2026-01-01T23:59:59.99aZ',
      '2026-01-01T23:59:59Z',
      '2026-01-01T23:59:59.000+01:00',
      '2026-01-01',
      '0999-12-31T23:59:59.999Z',
      '+02026-01-01T00:00:00.000Z',
      'not a date at all, 24 ch',
    ];
    for (const text of cases) expect(Object.is(parseInstant(text), Date.parse(text)), text).toBe(true);
  });

  it('agrees with Date.parse on any 24-character text shaped like an instant', () => {
    const digit = fc.constantFrom(...'0123456789');
    const digits = (n: number) => fc.array(digit, { minLength: n, maxLength: n }).map((list) => list.join(''));
    fc.assert(
      fc.property(digits(4), digits(2), digits(2), digits(2), digits(2), digits(2), digits(3), (y, mo, d, h, mi, s, ms) => {
        const text = `${y}-${mo}-${d}T${h}:${mi}:${s}.${ms}Z`;
        expect(Object.is(parseInstant(text), Date.parse(text))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
