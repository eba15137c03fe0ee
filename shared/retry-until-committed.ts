import { NotStartedError, WriteOutcomeUnknownError, isWriteOutcomeUnknown } from './faults';
import { remainingMs } from './request-deadline';
import { WRITE_START_MS } from './store/sdk-config';

const BASE_DELAY_MS = 10;
const MAX_DELAY_MS = 2_500;
/** Only a fuse for callers without a deadline: under a request, the deadline ends the loop. */
const DEFAULT_MAX_ATTEMPTS = 200;

/**
 * Runs an optimistic read-modify-write until it commits. `attempt` reads the latest version,
 * applies its change and writes conditionally on that version. It is run again when another
 * writer got there first (`isConflict`) and when its write got no definite answer (it re-reads,
 * so it sees whether that write landed), after a pause drawn at random below an exponentially
 * growing cap (full jitter), so racers spread out instead of colliding again.
 *
 * Contention alone never ends the loop: it stops when the store refuses to start another call
 * because the request's deadline is near (`NotStartedError`, a clean 503: nothing of this request
 * committed), or, when an earlier write's outcome is still unknown, with WriteOutcomeUnknownError.
 */
export async function retryUntilCommitted<T>(
  attempt: () => Promise<T>,
  options: { isConflict: (error: unknown) => boolean; maxAttempts?: number },
): Promise<T> {
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let unresolved: unknown;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (error instanceof NotStartedError && unresolved !== undefined) {
        throw new WriteOutcomeUnknownError('A write got no answer and there was no time left to check whether it committed', { cause: unresolved });
      }
      const unknown = isWriteOutcomeUnknown(error);
      if ((!unknown && !options.isConflict(error)) || tries >= maxAttempts) throw error;
      unresolved = unknown ? error : undefined;
      await pause(tries);
    }
  }
}

/** Never sleeps past the last moment a write can still start: the final attempt uses all the time there is. */
function pause(tries: number): Promise<void> {
  const cap = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.min(tries, 16));
  const delay = Math.min(Math.random() * cap, Math.max(0, remainingMs() - WRITE_START_MS - 50));
  return new Promise((resolve) => setTimeout(resolve, delay));
}
