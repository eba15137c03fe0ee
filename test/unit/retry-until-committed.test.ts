import { describe, expect, it, vi } from 'vitest';
import { NotStartedError, WriteOutcomeUnknownError, markWriteOutcomeUnknown } from '../../shared/faults';
import { oneAtATime } from '../../shared/one-at-a-time';
import { retryUntilCommitted } from '../../shared/retry-until-committed';
import { withDeadline } from '../../shared/request-deadline';

class Conflict extends Error {}
const isConflict = (error: unknown) => error instanceof Conflict;
const unknownOutcome = () => {
  const error = Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
  markWriteOutcomeUnknown(error);
  return error;
};

describe('retryUntilCommitted', () => {
  it('runs the attempt again after each conflict until it commits', async () => {
    const attempt = vi.fn().mockRejectedValueOnce(new Conflict()).mockRejectedValueOnce(new Conflict()).mockResolvedValue('done');

    expect(await retryUntilCommitted(attempt, { isConflict })).toBe('done');
    expect(attempt).toHaveBeenCalledTimes(3);
  });

  it('gives any other failure straight back', async () => {
    const failure = new Error('validation');
    const attempt = vi.fn().mockRejectedValue(failure);

    await expect(retryUntilCommitted(attempt, { isConflict })).rejects.toBe(failure);
    expect(attempt).toHaveBeenCalledOnce();
  });

  it('runs the attempt again after a write without an answer, so that it can read whether it landed', async () => {
    const attempt = vi.fn().mockRejectedValueOnce(unknownOutcome()).mockResolvedValue('settled');

    expect(await retryUntilCommitted(attempt, { isConflict })).toBe('settled');
  });

  it('ends a run of conflicts with the store refusing to start (a clean 503), never by counting', async () => {
    const refused = new NotStartedError('too late');
    const attempt = vi.fn(async () => {
      if (attempt.mock.calls.length > 5) throw refused;
      throw new Conflict();
    });

    await expect(withDeadline(Date.now() + 60_000, () => retryUntilCommitted(attempt, { isConflict }))).rejects.toBe(refused);
  });

  it('reports an unknown outcome, not a 503, when the deadline comes before a lost write was checked', async () => {
    const attempt = vi.fn().mockRejectedValueOnce(unknownOutcome()).mockRejectedValue(new NotStartedError('too late'));

    await expect(retryUntilCommitted(attempt, { isConflict })).rejects.toBeInstanceOf(WriteOutcomeUnknownError);
  });
});

describe('oneAtATime', () => {
  it('runs calls with one key one after another, in arrival order, and calls with other keys alongside', async () => {
    const log: string[] = [];
    const task = (name: string, ms: number) => async () => {
      log.push(`start ${name}`);
      await new Promise((resolve) => setTimeout(resolve, ms));
      log.push(`end ${name}`);
      return name;
    };

    const results = await Promise.all([oneAtATime('a', task('a1', 20)), oneAtATime('a', task('a2', 1)), oneAtATime('b', task('b1', 5))]);

    expect(results).toEqual(['a1', 'a2', 'b1']);
    expect(log.indexOf('start a2')).toBeGreaterThan(log.indexOf('end a1'));
    expect(log.indexOf('start b1')).toBeLessThan(log.indexOf('end a1'));
  });

  it('goes on with the next call after one fails', async () => {
    const failed = oneAtATime('k', async () => {
      throw new Error('boom');
    });
    const next = oneAtATime('k', async () => 'next');

    await expect(failed).rejects.toThrow('boom');
    expect(await next).toBe('next');
  });
});
