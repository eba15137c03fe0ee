import { publishAccountUpdated } from '../events/event-publisher';
import { logger } from '../config/logger';
import { isLogItem, logEntryOf, type LogEntry } from '../store/log-repository';
import { clearOutbox, isOutboxHead, outboxOf } from '../store/outbox-heads';
import { projectLogEntries, type ProjectOptions } from './project-log-entries';

/**
 * The one consumer of everything pending: log entries (events to store, orders to merge, read
 * models to update) and the order- and cost-settings outboxes (`accountUpdated` to publish). Deployed, the
 * table's stream hands it the NEW_IMAGE of each pending item (functions/workers/project-pending.ts);
 * locally, the drain hands it what the pending index holds (drain.ts). Both give the same items.
 *
 * Items are grouped by pixel and each group is projected as a whole; groups are independent, so
 * one failing group does not hold back the others. The result names the items of failed groups:
 * they stay pending, and running them again is always safe.
 */
export interface ConsumeResult {
  /** Items whose effects are all stored. */
  done: number;
  /** Items to run again: their group failed (the failure is logged). */
  failed: Array<Record<string, unknown>>;
  /** Events in the log entries whose projection completed (deliveries, repeats included). */
  projectedEvents: number;
  /** The oldest completed entry's time from acceptance to now: how far behind projection runs. */
  maxLagMs: number;
}

export async function consumePending(items: ReadonlyArray<Record<string, unknown>>, options: ProjectOptions = {}): Promise<ConsumeResult> {
  const groups = new Map<string, { entries: LogEntry[]; items: Array<Record<string, unknown>> }>();
  const outboxes: Array<Record<string, unknown>> = [];
  for (const item of items) {
    if (isLogItem(item)) {
      const pixelId = item.pixelId as string;
      const group = groups.get(pixelId) ?? { entries: [], items: [] };
      group.entries.push(logEntryOf(item));
      group.items.push(item);
      groups.set(pixelId, group);
    } else if (isOutboxHead(item)) {
      outboxes.push(item);
    } else {
      logger.warn('Ignoring a pending item of an unknown kind', { PK: item.PK, SK: item.SK });
    }
  }

  const result: ConsumeResult = { done: 0, failed: [], projectedEvents: 0, maxLagMs: 0 };
  const attempt = async (work: () => Promise<void>, groupItems: Array<Record<string, unknown>>, entries: readonly LogEntry[] = []) => {
    try {
      await work();
      result.done += groupItems.length;
      const now = Date.now();
      for (const entry of entries) {
        result.projectedEvents += entry.events.length;
        result.maxLagMs = Math.max(result.maxLagMs, now - Date.parse(entry.acceptedAt));
      }
    } catch (error) {
      logger.error('Projecting pending items failed; they stay pending and will be retried', { error, count: groupItems.length });
      result.failed.push(...groupItems);
    }
  };
  await Promise.all([
    ...[...groups].map(([pixelId, group]) => attempt(() => projectLogEntries(pixelId, group.entries, options), group.items, group.entries)),
    ...outboxes.map((head) => attempt(() => publishOutbox(head), [head])),
  ]);
  return result;
}

/**
 * Publishes a head item's outbox, then takes those events out. A failure before that leaves them
 * pending, so they are published again: at least once, each event under its stable eventId.
 */
async function publishOutbox(head: Record<string, unknown>): Promise<void> {
  const pixelId = (head.PK as string).slice('PIXEL#'.length);
  const events = outboxOf(head);
  for (const event of events) await publishAccountUpdated(event);
  await clearOutbox(pixelId, new Set(events.map((event) => event.eventId)), head.SK as string);
}
