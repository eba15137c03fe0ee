import { describe, expect, it, vi } from 'vitest';
import { lazySingleton } from '../../shared/config/lazy';

class Counter {
  #count = 0;
  label = 'counter';
  add(by: number): number {
    this.#count += by;
    return this.#count;
  }
}

describe('lazySingleton', () => {
  it('builds nothing at definition, then exactly one instance on first use', () => {
    const create = vi.fn(() => new Counter());
    const counter = lazySingleton(create);
    expect(create).not.toHaveBeenCalled();
    expect(counter.add(2)).toBe(2);
    expect(counter.add(3)).toBe(5);
    expect(counter.label).toBe('counter');
    expect(create).toHaveBeenCalledTimes(1);
  });

  it('calls methods on the instance, so private fields work, and hands out the same method each time', () => {
    const counter = lazySingleton(() => new Counter());
    const { add } = counter;
    expect(add(4)).toBe(4);
    expect(counter.add).toBe(counter.add);
    expect(counter).toBeInstanceOf(Counter);
  });

  it('lets a spy replace and observe a method of the instance', () => {
    const counter = lazySingleton(() => new Counter());
    const spy = vi.spyOn(counter, 'add').mockImplementation(() => 42);
    expect(counter.add(1)).toBe(42);
    expect(vi.mocked(counter.add)).toHaveBeenCalledWith(1);
    spy.mockRestore();
    expect(counter.add(1)).toBe(1);
  });
});
