import { describe, expect, it } from 'vitest';
import { VersionedCache } from '../../shared/store/versioned-cache';

describe('VersionedCache', () => {
  it('answers only for the version a value was stored with', () => {
    const cache = new VersionedCache<string[]>({ maxEntries: 10, maxWeight: 100, weigh: (value) => value.length });
    cache.set('px', 3, ['a']);
    expect(cache.get('px', 3)).toEqual(['a']);
    expect(cache.get('px', 4)).toBeUndefined();
    expect(cache.get('other', 3)).toBeUndefined();
  });

  it('evicts the least recently used entry beyond its entry count', () => {
    const cache = new VersionedCache<string>({ maxEntries: 2, maxWeight: 100, weigh: () => 1 });
    cache.set('a', 1, 'A');
    cache.set('b', 1, 'B');
    cache.get('a', 1);
    cache.set('c', 1, 'C');
    expect([cache.get('a', 1), cache.get('b', 1), cache.get('c', 1)]).toEqual(['A', undefined, 'C']);
  });

  it('evicts until the total weight fits, and never keeps a value heavier than the whole budget', () => {
    const cache = new VersionedCache<number[]>({ maxEntries: 10, maxWeight: 5, weigh: (value) => value.length });
    cache.set('a', 1, [1, 2]);
    cache.set('b', 1, [1, 2]);
    cache.set('c', 1, [1, 2, 3]);
    expect([cache.get('a', 1), cache.get('b', 1), cache.get('c', 1)]).toEqual([undefined, [1, 2], [1, 2, 3]]);
    cache.set('huge', 1, [1, 2, 3, 4, 5, 6]);
    expect(cache.get('huge', 1)).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  it('replaces an entry stored again under a newer version', () => {
    const cache = new VersionedCache<string>({ maxEntries: 1, maxWeight: 10, weigh: () => 1 });
    cache.set('a', 1, 'old');
    cache.set('a', 2, 'new');
    expect([cache.get('a', 1), cache.get('a', 2), cache.size]).toEqual([undefined, 'new', 1]);
  });
});
