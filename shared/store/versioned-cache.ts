/**
 * A small LRU of values that are only valid for one version of what they were read from. A
 * lookup names the version it just read from the store, so a hit can never be stale: a newer
 * version simply misses. Bounded both by entries and by a total weight (e.g. number of ads), so a
 * warm Lambda container holding a few very large pixels still stays within its memory.
 */
export class VersionedCache<V> {
  // A version is a number, or any string that changes with every write (a number and a random stamp).
  private readonly entries = new Map<string, { version: number | string; value: V; weight: number }>();
  private totalWeight = 0;

  constructor(private readonly limits: { maxEntries: number; maxWeight: number; weigh: (value: V) => number }) {}

  get(key: string, version: number | string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return undefined;
    // Map keeps insertion order: re-inserting marks the entry most recently used.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, version: number | string, value: V): void {
    this.delete(key);
    const weight = this.limits.weigh(value);
    if (weight > this.limits.maxWeight) return;
    this.entries.set(key, { version, value, weight });
    this.totalWeight += weight;
    for (const [oldestKey] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.totalWeight <= this.limits.maxWeight) break;
      this.delete(oldestKey);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  private delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.totalWeight -= entry.weight;
    this.entries.delete(key);
  }
}
