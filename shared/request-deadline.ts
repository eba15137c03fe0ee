import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The time by which the current request must have answered, carried implicitly from the request
 * pipeline down to the store layer, so that no store call is started that could not finish in
 * time. Outside a request (the CLIs) there is no deadline.
 */
interface Budget {
  deadline: number;
  /** The writes in progress need no read after them (see `asFinalWrite`). */
  finalWrite: boolean;
  /** Store calls of this request that failed on a passing fault (refused, unanswered, throttled), shared by nested scopes. */
  faults: { count: number };
}

const current = new AsyncLocalStorage<Budget>();

/** Runs `work` with a deadline (epoch milliseconds); `undefined` runs it without one. */
export function withDeadline<T>(deadline: number | undefined, work: () => Promise<T>): Promise<T> {
  return deadline === undefined ? work() : current.run({ deadline, finalWrite: false, faults: { count: 0 } }, work);
}

/**
 * Runs writes whose outcome never needs checking afterwards (recording a response that is
 * already decided): they may start as late as a read may.
 */
export function asFinalWrite<T>(work: () => Promise<T>): Promise<T> {
  const budget = current.getStore();
  return budget ? current.run({ ...budget, finalWrite: true }, work) : work();
}

/** Milliseconds left before the current request's deadline; Infinity outside a request. */
export function remainingMs(now = Date.now()): number {
  const budget = current.getStore();
  return budget === undefined ? Number.POSITIVE_INFINITY : budget.deadline - now;
}

/** Records that a store call of the current request failed on a passing fault. */
export function noteStoreFault(): void {
  const budget = current.getStore();
  if (budget) budget.faults.count++;
}

/**
 * Whether the current request met a passing fault of the store. A request that ran out of time
 * without one ran out on its own size: asking again would end the same way.
 */
export function metStoreFault(): boolean {
  return (current.getStore()?.faults.count ?? 0) > 0;
}

export function inFinalWrite(): boolean {
  return current.getStore()?.finalWrite ?? false;
}
