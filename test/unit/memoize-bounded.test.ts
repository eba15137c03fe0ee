import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { memoizeBounded } from '../../shared/memoize-bounded';
import { shardOf, EVENT_SHARDS } from '../../shared/store/event-repository';
import { groupLinkKey } from '../../shared/store/journey-repository';

describe('memoizeBounded', () => {
  it('answers as the function does, for any sequence of arguments and any capacity (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 4 }), { maxLength: 200 }), fc.integer({ min: 1, max: 8 }), (args, capacity) => {
        const compute = (text: string) => `${text.length}:${text}`;
        const memoized = memoizeBounded(compute, capacity);
        for (const arg of args) expect(memoized(arg)).toBe(compute(arg));
      }),
    );
  });

  it('computes an argument asked again at once only the first time, undefined and null results included', () => {
    const compute = vi.fn((text: string) => (text === 'u' ? undefined : text === 'n' ? null : text.toUpperCase()));
    const memoized = memoizeBounded(compute);
    for (let i = 0; i < 3; i++) {
      expect(memoized('u')).toBeUndefined();
      expect(memoized('n')).toBeNull();
      expect(memoized('a')).toBe('A');
    }
    expect(compute).toHaveBeenCalledTimes(3);
  });

  it('holds at most `capacity` arguments: the one after forgets them all, and they are computed again', () => {
    const compute = vi.fn((text: string) => text.length);
    const memoized = memoizeBounded(compute, 2);
    memoized('a');
    memoized('bb');
    memoized('a');
    expect(compute).toHaveBeenCalledTimes(2);
    memoized('ccc');
    memoized('a');
    expect(compute).toHaveBeenCalledTimes(4);
  });
});

// The stored keys these name must never change with the caching: a page's shard and a group's link key as computed without it.
describe('the keys computed through it', () => {
  it('a page shard is the first byte of the entry id’s SHA-256, modulo the shards (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (entryId) => {
        expect(shardOf(entryId)).toBe((createHash('sha256').update(entryId, 'utf8').digest()[0] as number) % EVENT_SHARDS);
        expect(shardOf(entryId)).toBe(shardOf(entryId));
      }),
    );
  });

  it('a group link key digests the sorted group, in any order given (fast-check)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { minLength: 2, maxLength: 5 }), (group) => {
        const digest = createHash('sha256').update([...group].sort().join('\n')).digest('base64url').slice(0, 16);
        expect(groupLinkKey('01KENTRY', '2026-03-10', group)).toBe(`eg:01KENTRY#2026-03-10#${digest}`);
        expect(groupLinkKey('01KENTRY', '2026-03-10', [...group].reverse())).toBe(`eg:01KENTRY#2026-03-10#${digest}`);
      }),
    );
  });
});
