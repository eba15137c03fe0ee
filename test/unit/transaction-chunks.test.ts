import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { transactionChunks } from '../../shared/store/transaction-chunks';

describe('transactionChunks', () => {
  it('keeps every write once and in order, at most 100 a chunk and under 3 MB unless a write alone passes it (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 4_000_000 }), { maxLength: 450 }), (sizes) => {
        const writes = sizes.map((size, index) => ({ index, size }));
        const chunks = transactionChunks(writes, ({ size }) => size);
        expect(chunks.flat()).toEqual(writes);
        for (const chunk of chunks) {
          expect(chunk.length).toBeGreaterThan(0);
          expect(chunk.length).toBeLessThanOrEqual(100);
          if (chunk.length > 1) expect(chunk.reduce((sum, { size }) => sum + size, 0)).toBeLessThanOrEqual(3_000_000);
        }
      }),
    );
  });

  it('fills a chunk before starting the next', () => {
    expect(transactionChunks(Array.from({ length: 250 }, (_, i) => i), () => 10).map((chunk) => chunk.length)).toEqual([100, 100, 50]);
    expect(transactionChunks([1_000_000, 1_000_000, 1_000_000, 1], (size) => size).map((chunk) => chunk.length)).toEqual([3, 1]);
  });
});
