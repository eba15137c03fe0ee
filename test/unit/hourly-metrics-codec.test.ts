import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeMonth, encodeMonth, monthKeyOf, type HourlyMetrics } from '../../shared/store/hourly-metrics-codec';

const at = (iso: string, spend: number): HourlyMetrics => ({ hour: Date.parse(iso), spend, impressions: 300, clicks: 4, conversions: 1, conversionValue: 30 });

describe('hourly metrics month encoding', () => {
  it('packs one 42-byte record per hour after a format byte, in hour order', () => {
    const bytes = encodeMonth('2026-03', [at('2026-03-31T23:00:00Z', 2), at('2026-03-01T00:00:00Z', 812.4)]);
    expect(bytes.byteLength).toBe(1 + 2 * 42);
    expect(decodeMonth('2026-03', bytes)).toEqual([at('2026-03-01T00:00:00Z', 812.4), at('2026-03-31T23:00:00Z', 2)]);
  });

  it('reads a slice of a larger buffer (as the SDK may hand it back)', () => {
    const bytes = encodeMonth('2024-02', [at('2024-02-29T05:00:00Z', 0.1)]);
    const padded = new Uint8Array(bytes.byteLength + 7);
    padded.set(bytes, 3);
    expect(decodeMonth('2024-02', padded.subarray(3, 3 + bytes.byteLength))).toEqual([at('2024-02-29T05:00:00Z', 0.1)]);
  });

  it('refuses an hour of another month, and data not in its format', () => {
    expect(() => encodeMonth('2026-03', [at('2026-04-01T00:00:00Z', 1)])).toThrow(RangeError);
    expect(() => decodeMonth('2026-03', new Uint8Array([2]))).toThrow(/format/);
    expect(() => decodeMonth('2026-03', new Uint8Array([1, 0, 0]))).toThrow(/format/);
  });

  it('round-trips every float64 and safe integer exactly', () => {
    const value = fc.double({ noNaN: true, noDefaultInfinity: true, min: 0 });
    const count = fc.maxSafeNat();
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 30 * 24 - 1 }), { maxLength: 30 }),
        fc.tuple(value, count, count, count, value),
        (hours, [spend, impressions, clicks, conversions, conversionValue]) => {
          const start = Date.UTC(2026, 3, 1);
          const rows = hours
            .sort((a, b) => a - b)
            .map((h) => ({ hour: start + h * 3_600_000, spend, impressions, clicks, conversions, conversionValue }));
          expect(decodeMonth('2026-04', encodeMonth('2026-04', rows))).toEqual(rows);
        },
      ),
    );
  });

  it('names months by their UTC calendar month', () => {
    expect(monthKeyOf(Date.parse('2026-01-31T23:00:00Z'))).toBe('2026-01');
    expect(monthKeyOf(Date.parse('2026-02-01T00:00:00Z'))).toBe('2026-02');
  });
});
