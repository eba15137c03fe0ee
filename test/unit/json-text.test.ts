import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asciiBytes, AsciiJsonWriter } from '../../shared/http/json-text';

/** What the writer holds, as text. */
const textOf = (writer: AsciiJsonWriter) => writer.finish().text;

function numbersText(values: readonly number[]): string {
  const writer = new AsciiJsonWriter();
  values.forEach((value, i) => {
    if (i > 0) writer.pushBytes(asciiBytes(','));
    writer.pushNumber(value);
  });
  return textOf(writer);
}

/** Values as the ad listing writes them: rounded to six decimals (roundForOutput). */
const roundedValue = fc.oneof(
  fc.integer({ min: -1_000_000_000_000_000, max: 1_000_000_000_000_000 }).map((n) => n / 1e6),
  fc.double({ min: -2e9, max: 2e9, noNaN: true }).map((value) => Math.round(value * 1e6) / 1e6),
  fc.integer({ min: 0, max: 10_000_000 }),
);

describe('AsciiJsonWriter', () => {
  it('writes a number as JSON.stringify does, for values rounded to six decimals', () => {
    fc.assert(
      fc.property(fc.array(roundedValue, { maxLength: 50 }), (values) => {
        expect(numbersText(values)).toBe(values.map((value) => JSON.stringify(value)).join(','));
      }),
      { numRuns: 2_000 },
    );
  });

  it('writes any double as JSON.stringify does, null for NaN and the infinities', () => {
    fc.assert(
      fc.property(fc.array(fc.double(), { maxLength: 50 }), (values) => {
        expect(numbersText(values)).toBe(values.map((value) => JSON.stringify(value)).join(','));
      }),
      { numRuns: 2_000 },
    );
  });

  it.each([0, -0, 1e-6, -1e-6, 5e-7, 0.1, 0.000123, 999_999_999.999999, 1e9, 1e15, 123_456_789_012.345678, 1e21, Number.MAX_SAFE_INTEGER, Number.NaN, Number.POSITIVE_INFINITY])(
    'writes %s as JSON.stringify does',
    (value) => {
      expect(numbersText([value])).toBe(JSON.stringify(value));
    },
  );

  it('keeps pieces, bytes and numbers in order across slice ends', () => {
    const writer = new AsciiJsonWriter();
    const expected: string[] = [];
    const member = asciiBytes(',"channel.spend":');
    for (let i = 0; i < 200_000; i++) {
      const value = (i * 7919) / 1e4;
      if (i % 3 === 0) writer.push('{"i":', String(i));
      else writer.pushBytes(asciiBytes(`{"i":${i}`));
      writer.pushBytes(member);
      writer.pushNumber(value);
      writer.push('}');
      expected.push(`{"i":${i},"channel.spend":${JSON.stringify(value)}}`);
    }
    const text = writer.finish();
    expect(text.slices.length).toBeGreaterThan(3);
    expect(text.byteLength).toBe(expected.join('').length);
    expect(text.text).toBe(expected.join(''));
  });
});
