/** Anything the local server starts and must stop: a listening server, a lock, a background worker. */
export interface Service {
  close(): Promise<void>;
}

/** Why the server cannot start, said in one line for the person who ran it; no stack trace. */
export class StartupError extends Error {}

/**
 * The services the local server has started, in start order. Each is added as soon as it has
 * started and they are closed in reverse order, so whatever depends on a service (a worker on the
 * store, the API on both) is stopped, and drained, before that service. A failed start closes
 * what had started, so nothing is left holding a port or the data directory.
 */
export class Lifecycle {
  private readonly services: Array<{ name: string; service: Service }> = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly log: (line: string) => void) {}

  /** True once closing has begun (a signal, or a failed start). */
  get stopping(): boolean {
    return this.closing !== undefined;
  }

  add<S extends Service>(name: string, service: S): S {
    this.services.push({ name, service });
    return service;
  }

  /** Closes every service once, newest first; one that fails to close does not keep the others open. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const { name, service } of this.services.toReversed()) {
        try {
          await service.close();
        } catch (error) {
          this.log(`could not stop ${name} cleanly: ${(error as Error).message}`);
        }
      }
    })();
    return this.closing;
  }

  /**
   * SIGINT and SIGTERM stop every service and exit 0. Another signal a second or more later, while
   * stopping, exits at once (code 130), for the impatient Ctrl-C; one sooner is the same signal
   * arriving twice (Ctrl-C reaches both npm and this process, and npm forwards it too).
   */
  closeOnSignals(): void {
    let firstSignalAt = 0;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.on(signal, () => {
        if (this.closing) {
          if (performance.now() - firstSignalAt >= 1_000) process.exit(130);
          return;
        }
        firstSignalAt = performance.now();
        this.log(`${signal}: shutting down`);
        void this.close().then(() => process.exit(0));
      });
    }
  }
}
