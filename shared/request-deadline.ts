import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The time by which the current request must have answered, carried implicitly from the request
 * pipeline down to the store layer, so that no store call is started that could not finish in
 * time. Outside a request (the CLIs) there is no deadline.
 */
const current = new AsyncLocalStorage<number>();

/** Runs `work` with a deadline (epoch milliseconds); `undefined` runs it without one. */
export function withDeadline<T>(deadline: number | undefined, work: () => Promise<T>): Promise<T> {
  return deadline === undefined ? work() : current.run(deadline, work);
}

/** Milliseconds left before the current request's deadline; Infinity outside a request. */
export function remainingMs(now = Date.now()): number {
  const deadline = current.getStore();
  return deadline === undefined ? Number.POSITIVE_INFINITY : deadline - now;
}
