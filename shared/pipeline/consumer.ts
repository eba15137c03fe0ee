import { publishAccountUpdated } from '../events/event-publisher';
import { logger } from '../config/logger';
import { mapWithConcurrency } from '../map-with-concurrency';
import { isLogItem, logEntryOf } from '../store/log-repository';
import { clearOutbox, isOutboxHead, outboxOf } from '../store/outbox-heads';
import { attemptsOf, pixelOfPending, recordFailure, type RetryPolicy } from '../store/pending-failures';
import { projectLogEntries, type ProjectOptions } from './project-log-entries';

type Item = Record<string, unknown>;

/**
 * The one consumer of everything pending: log entries (events to store, orders to merge, read
 * models to update) and the order- and cost-settings outboxes (`accountUpdated` to publish). Deployed, the
 * table's stream hands it the NEW_IMAGE of each pending item (functions/workers/project-pending.ts);
 * locally, the drain hands it what the pending index holds (drain.ts). Both give the same items.
 *
 * Items are grouped by pixel; pixels are worked side by side and never wait for one another. A
 * pixel's new log entries are projected together (one dedup-index read, one write of each read
 * model for all of them); an entry that failed before is projected alone, so an entry that keeps
 * failing fails by itself and the entries it was grouped with go on. Each outbox is published on
 * its own. A failure is recorded on each item that failed (pending-failures.ts): it stays pending
 * and is tried again after the policy's backoff, and its `maxAttempts`-th failure parks it, out of
 * the way of everything else, until `npm run replay-parked`. Running any item again is always safe.
 */
export interface ConsumeResult {
  /** Items whose effects are all stored. */
  done: number;
  /** Items that failed and stay pending, their failure recorded: tried again after their backoff. */
  retrying: Item[];
  /** Items that failed for the last time and were parked. */
  parked: Item[];
  /** Items that failed and whose failure could not be recorded: pending as they were; the caller must run them again. */
  failed: Item[];
  /** Events in the log entries whose projection completed (deliveries, repeats included). */
  projectedEvents: number;
  /** The oldest completed entry's time from acceptance to now: how far behind projection runs. */
  maxLagMs: number;
}

export interface ConsumeOptions extends ProjectOptions {
  retry?: RetryPolicy;
}

/**
 * Six attempts: the backoff doubles from 1 s (1, 2, 4, 8 s, then 16 s before the last), so an
 * item that keeps failing is parked about half a minute after its first failure, and a passing
 * fault (a throttled partition, a conflict with another consumer) has that long to clear.
 */
export const PENDING_RETRY: RetryPolicy = {
  maxAttempts: 6,
  backoffMs: (attempts) => 1_000 * 2 ** (attempts - 1),
};

export async function consumePending(items: ReadonlyArray<Item>, options: ConsumeOptions = {}): Promise<ConsumeResult> {
  const { retry = PENDING_RETRY, ...projectOptions } = options;
  // One item once (a stream batch can hold two images of it: its last is the newest), by pixel.
  const byKey = new Map(items.map((item) => [`${String(item.PK)}\u0000${String(item.SK)}`, item]));
  const byPixel = new Map<string, Item[]>();
  for (const item of byKey.values()) {
    const pixelId = pixelOfPending(item);
    const pixelItems = byPixel.get(pixelId);
    if (pixelItems) pixelItems.push(item);
    else byPixel.set(pixelId, [item]);
  }

  const result: ConsumeResult = { done: 0, retrying: [], parked: [], failed: [], projectedEvents: 0, maxLagMs: 0 };
  const attempt = async (pixelId: string, group: Item[], work: () => Promise<number | void>) => {
    try {
      const events = await work();
      result.done += group.length;
      result.projectedEvents += events ?? 0;
    } catch (error) {
      await recordFailures(pixelId, group, error, retry, result);
    }
  };
  const project = (pixelId: string, group: Item[]) =>
    attempt(pixelId, group, async () => {
      const entries = group.map(logEntryOf);
      await projectLogEntries(pixelId, entries, projectOptions);
      const now = Date.now();
      for (const entry of entries) result.maxLagMs = Math.max(result.maxLagMs, now - Date.parse(entry.acceptedAt));
      return entries.reduce((sum, entry) => sum + entry.events.length, 0);
    });

  await Promise.all(
    [...byPixel].map(async ([pixelId, pixelItems]) => {
      const entries = pixelItems.filter(isLogItem);
      const fresh = entries.filter((item) => attemptsOf(item) === 0);
      const retried = entries.filter((item) => attemptsOf(item) > 0);
      await Promise.all([
        ...pixelItems.filter(isOutboxHead).map((head) => attempt(pixelId, [head], () => publishOutbox(head))),
        // An item of no kind the consumer knows is parked, not dropped: a later version may know it.
        ...pixelItems
          .filter((item) => !isLogItem(item) && !isOutboxHead(item))
          .map((item) =>
            attempt(pixelId, [item], async () => {
              throw new Error(`No consumer for a pending item with SK ${String(item.SK)}`);
            }),
          ),
        // A pixel's entries one projection after another: never two at once.
        (async () => {
          if (fresh.length > 0) await project(pixelId, fresh);
          for (const item of retried) await project(pixelId, [item]);
        })(),
      ]);
    }),
  );
  return result;
}

async function recordFailures(pixelId: string, group: Item[], error: unknown, retry: RetryPolicy, result: ConsumeResult): Promise<void> {
  const now = new Date();
  const outcomes = await mapWithConcurrency(group, 8, (item) => recordFailure(item, error, retry, now).catch((recordError: unknown) => ({ recordError })));
  const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const retrying = group.filter((_, index) => outcomes[index] === 'retry');
  const parked = group.filter((_, index) => outcomes[index] === 'parked');
  const unrecorded = outcomes.flatMap((outcome) => (typeof outcome === 'object' ? [outcome.recordError] : []));
  result.retrying.push(...retrying);
  result.parked.push(...parked);
  result.failed.push(...group.filter((_, index) => typeof outcomes[index] === 'object'));
  if (retrying.length > 0) logger.warn('Projecting pending items failed; they stay pending and are retried after a backoff', { pixelId, count: retrying.length, attempts: attemptsOf(retrying[0]!) + 1, error });
  for (const item of parked) {
    logger.error('Parked a pending item that kept failing: it waits in the parked index until `npm run replay-parked` re-projects it', {
      pixelId,
      id: typeof item.entryId === 'string' ? item.entryId : item.SK,
      attempts: attemptsOf(item) + 1,
      reason,
    });
  }
  if (unrecorded.length > 0) {
    logger.error('Projecting pending items failed and the failures could not be recorded; they stay pending as they were', { pixelId, count: unrecorded.length, error, recordError: unrecorded[0] });
  }
}

/**
 * Publishes a head item's outbox, then takes those events out. A failure before that leaves them
 * pending, so they are published again: at least once, each event under its stable eventId.
 */
async function publishOutbox(head: Item): Promise<void> {
  const pixelId = (head.PK as string).slice('PIXEL#'.length);
  const events = outboxOf(head);
  for (const event of events) await publishAccountUpdated(event);
  await clearOutbox(pixelId, new Set(events.map((event) => event.eventId)), head.SK as string);
}
