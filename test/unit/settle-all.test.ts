import { describe, expect, it } from 'vitest';
import { settleAll } from '../../shared/settle-all';

describe('settleAll', () => {
  it('answers every value in order', async () => {
    await expect(settleAll([Promise.resolve(1), 'two', undefined, new Promise<string>((resolve) => setTimeout(() => resolve('late'), 5))])).resolves.toEqual([1, 'two', undefined, 'late']);
  });

  it('reports the first failure only once every piece has finished, so nothing of a failed step is still running', async () => {
    let slowDone = false;
    const slow = new Promise<void>((resolve) =>
      setTimeout(() => {
        slowDone = true;
        resolve();
      }, 20),
    );
    const failure = settleAll([Promise.reject(new Error('first')), slow, Promise.reject(new Error('second'))]);
    await expect(failure).rejects.toThrow('first');
    expect(slowDone).toBe(true);
  });
});
