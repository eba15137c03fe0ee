import { describe, expect, it } from 'vitest';
import { withDuckDB } from '../../shared/analytics/store/duckdb';
import { NotStartedError } from '../../shared/faults';
import { withDeadline } from '../../shared/request-deadline';

/*
 * The analytics engine under a request's deadline: a statement still running near it is
 * interrupted and ends as a failure known to have changed nothing, in time for the request to
 * answer; outside a request nothing limits it.
 */
describe('the analytics engine under a deadline', () => {
  it('interrupts a statement still running shortly before the deadline, as not started', async () => {
    const outcome = await withDeadline(Date.now() + 1_000, () =>
      withDuckDB((connection) => connection.run('SELECT count(*) FROM range(1000000000000) AS t(i) WHERE i % 7 = 3')).then(
        () => 'finished',
        (error: unknown) => error,
      ),
    );
    // Without the interruption it would run for minutes and finish.
    expect(outcome).toBeInstanceOf(NotStartedError);
  });

  it('lets a statement run to its end outside a request, and within a deadline it meets', async () => {
    const count = await withDuckDB(async (connection) => Number((await connection.runAndReadAll('SELECT count(*) FROM range(1000)')).getRows()[0]![0]));
    expect(count).toBe(1000);
    const inTime = await withDeadline(Date.now() + 10_000, () => withDuckDB(async (connection) => Number((await connection.runAndReadAll('SELECT 41 + 1')).getRows()[0]![0])));
    expect(inTime).toBe(42);
  });
});
