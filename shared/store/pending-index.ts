import { createHash } from 'node:crypto';

/**
 * The pending index: items whose effects have not been projected yet carry `GSI2PK=PENDING#<shard>`
 * and `GSI2SK=<pixelId>#<ulid>` (a sparse slice of GSI2, whose other prefixes belong to API keys
 * and to parked items). The consumer removes both attributes once the item's effects are stored,
 * so the index always holds exactly the backlog: locally the drain reads it, deployed the table's
 * stream filters on it (NEW_IMAGE with a `PENDING#` GSI2PK) and an operator can read it to see a
 * stuck backlog.
 *
 * The shard is a hash of the pixel: every pending item of one pixel is in one shard, so the local
 * drain, which works each shard in sequence, never projects two entries of a pixel at once. The
 * sort key starts with the pixel, so a shard's items are grouped by pixel: the drain gives each
 * pending pixel a turn every pass by skipping from one pixel's run to the next (drain.ts), however
 * long a run is. Within a pixel, log entries sort by their ULID; a settings head's outbox sorts
 * first (`!` is below every ULID character), so a backlog of events never holds up the pixel's
 * `accountUpdated`. Items written before the sort key carried the pixel have a bare ULID; they
 * drain all the same (the consumer takes the pixel from the item, never from the key).
 *
 * An item that keeps failing is moved to the parked index, `GSI2PK=PARKED#<shard>` with the same
 * sort key (pending-failures.ts), until `npm run replay-parked` moves it back.
 */
export const PENDING_PREFIX = 'PENDING#';
export const PARKED_PREFIX = 'PARKED#';
export const PENDING_SHARDS = 8;

export function pendingShardOf(pixelId: string): number {
  return (createHash('sha256').update(pixelId, 'utf8').digest()[0] as number) % PENDING_SHARDS;
}

export const pendingPartition = (shard: number) => `${PENDING_PREFIX}${shard}`;
export const parkedPartition = (shard: number) => `${PARKED_PREFIX}${shard}`;

/** Marks a settings head's outbox in the sort key: it sorts before the pixel's log entries. */
const OUTBOX_MARK = '!';

/** The sort key of a pending item of `pixelId` (pixel ids never hold `#`). */
export function pendingSortKey(pixelId: string, ulid: string, kind: 'entry' | 'outbox' = 'entry'): string {
  return `${pixelId}#${kind === 'outbox' ? OUTBOX_MARK : ''}${ulid}`;
}

/**
 * The run a sort key belongs to: its pixel's prefix `<pixelId>#`, every key of that pixel and no
 * other starting with it; undefined for a key of the earlier layout (a bare ULID).
 */
export function runPrefixOf(sortKey: string): string | undefined {
  const end = sortKey.indexOf('#');
  return end < 0 ? undefined : sortKey.slice(0, end + 1);
}

/** Above every sort key of a run: `GSI2SK > <prefix>\uffff` skips the rest of that pixel's run. */
export const PAST_RUN = '\uffff';

/**
 * Listeners told which shard just gained a pending item written by this process: the local
 * drain, which then polls that shard at once instead of on its timer. Deployed nothing listens
 * (the stream delivers), and an item written by another process is found by the drain's timer.
 */
const pendingListeners = new Set<(shard: number) => void>();

/** Calls `listener` with the shard of every pending item this process writes from now on; returns the unsubscribe. */
export function onPendingWritten(listener: (shard: number) => void): () => void {
  pendingListeners.add(listener);
  return () => pendingListeners.delete(listener);
}

/** Tells the listeners that an item of this pixel is pending: call once its write has succeeded. */
export function announcePending(pixelId: string): void {
  if (pendingListeners.size === 0) return;
  announcePendingShard(pendingShardOf(pixelId));
}

/** Tells the listeners that a shard gained a pending item: for a thread relaying another thread's writes. */
export function announcePendingShard(shard: number): void {
  for (const listener of pendingListeners) listener(shard);
}

/** The attributes that put an item in the pending index. */
export function pendingAttributes(pixelId: string, ulid: string, kind: 'entry' | 'outbox' = 'entry'): { GSI2PK: string; GSI2SK: string } {
  return { GSI2PK: pendingPartition(pendingShardOf(pixelId)), GSI2SK: pendingSortKey(pixelId, ulid, kind) };
}
