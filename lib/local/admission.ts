/**
 * The local stand-in for Lambda's concurrency: at most `maxInFlight` requests run their handler
 * at once, the others wait their turn in arrival order. Deployed, each function instance serves
 * one request at a time and API Gateway never queues; locally one process serves every request,
 * and without a bound a burst would make every request in it slow at once (each sharing the
 * event loop and the embedded store with all the others) until all of them ran out of time.
 * With the bound, requests are served in turn at full speed, and one that cannot start within
 * `maxWaitMs` is turned away (the caller answers 503 with Retry-After: nothing was done).
 */
export interface Admission {
  /** Runs `work` once admitted; `undefined` (without running it) when the wait ran out or the queue was full. */
  run<T>(work: () => Promise<T>): Promise<T | undefined>;
  readonly inFlight: number;
  readonly waiting: number;
}

export function createAdmission(options: { maxInFlight: number; maxWaitMs: number; maxWaiting: number }): Admission {
  let inFlight = 0;
  // Waiters in arrival order; a waiter whose time ran out is taken out of the queue.
  const queue: Array<{ admit: () => void; timer: NodeJS.Timeout }> = [];

  const release = () => {
    const next = queue.shift();
    if (!next) {
      inFlight--;
      return;
    }
    clearTimeout(next.timer);
    next.admit();
  };

  const admitted = (): Promise<boolean> => {
    if (inFlight < options.maxInFlight) {
      inFlight++;
      return Promise.resolve(true);
    }
    if (queue.length >= options.maxWaiting) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        // The slot of the request that ended passes straight to this one: inFlight is unchanged.
        admit: () => resolve(true),
        timer: setTimeout(() => {
          queue.splice(queue.indexOf(waiter), 1);
          resolve(false);
        }, options.maxWaitMs),
      };
      queue.push(waiter);
    });
  };

  return {
    async run(work) {
      if (!(await admitted())) return undefined;
      try {
        return await work();
      } finally {
        release();
      }
    },
    get inFlight() {
      return inFlight;
    },
    get waiting() {
      return queue.length;
    },
  };
}
