import { describe, expect, it } from 'vitest';
import { mapWithConcurrency } from '../../shared/map-with-concurrency';

const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

describe('mapWithConcurrency', () => {
  it('keeps input order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const results = await mapWithConcurrency([5, 1, 4, 2, 3, 0, 6], 3, async (value, index) => {
      running++;
      peak = Math.max(peak, running);
      for (let i = 0; i < value; i++) await tick();
      running--;
      return `${index}:${value}`;
    });
    expect(results).toEqual(['0:5', '1:1', '2:4', '3:2', '4:3', '5:0', '6:6']);
    expect(peak).toBe(3);
  });

  it('handles no items, and a limit above the item count', async () => {
    expect(await mapWithConcurrency([], 4, async () => 1)).toEqual([]);
    expect(await mapWithConcurrency([1, 2], 16, async (value) => value * 2)).toEqual([2, 4]);
  });

  it('rejects with the first failure and starts no new work after it', async () => {
    const started: number[] = [];
    await expect(
      mapWithConcurrency([0, 1, 2, 3, 4, 5], 2, async (value) => {
        started.push(value);
        await tick();
        if (value === 1) throw new Error('boom');
        return value;
      }),
    ).rejects.toThrow('boom');
    expect(started).toEqual([0, 1, 2]);
  });

  it('refuses a limit that is not a positive integer', async () => {
    await expect(mapWithConcurrency([1], 0, async (value) => value)).rejects.toThrow(RangeError);
  });
});
