import { logger } from '../config/logger';
import { PAST_RUN, PENDING_SHARDS, onPendingWritten, pendingPartition, runPrefixOf } from '../store/pending-index';
import { documentClient, tableName } from '../store/dynamo-client';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { attemptsOf, pixelOfPending } from '../store/pending-failures';
import { startCompactionLoop } from '../analytics/store/compaction-runner';
import { PENDING_RETRY, consumePending, type ConsumeOptions } from './consumer';

/**
 * The local stand-in for the stream trigger: hands what each shard of the pending index holds to
 * the same consumer Lambda runs. Each shard is worked in sequence (one pixel's entries are never
 * projected twice at once); the shards run side by side. A shard that had work is polled again at
 * once. An empty one waits until this process writes a pending item of it (`announcePending`,
 * as an append does once it is stored), which wakes it at once, as a stream delivers a record,
 * or `IDLE_POLL_MS`, which finds items written by another process on the same store: so the lag
 * an idle shard adds is nothing for this server's own writes, and idle shards cost one Query a
 * second each rather than one every 50-200 ms (a tenth of the store calls of the ingestion
 * benchmark's projection case went to empty polls).
 */
export const IDLE_POLL_MS = 1_000;
/** The first pause after a pass whose failures could not even be recorded (doubled while that goes on, up to 5 s). */
const FIRST_BACKOFF_MS = 50;

// The dedup index is read and written once per batch, whatever its size, so a larger batch costs
// less per event (a Query stops at 1 MB, so a batch of very large entries is smaller).
export const DRAIN_BATCH = 100;

export interface PassResult {
  /** Items projected or published. */
  done: number;
  /** Items that failed, recorded, and wait for their backoff. */
  retrying: number;
  /** Items that failed for the last time and were parked. */
  parked: number;
  /** Items that failed and whose failure could not be recorded. */
  failed: number;
}

/**
 * One pass over one shard: every pixel with pending items gets a turn, of up to `limit` of its
 * oldest (an outbox first, then log entries in ULID order), however many items other pixels have
 * waiting. The pass reads the shard a page at a time in sort-key order, which is pixel by pixel:
 * a page holding several pixels' runs is consumed except its last run, which may go on past the
 * page and is read again from its start by the next Query; a page of one pixel's run is that
 * pixel's turn, and the next Query skips the rest of its run (`GSI2SK > <pixelId>#\uffff`). So a
 * neighbour's new entry waits at most for the pages ahead of it in its own pass, never for another
 * pixel's whole backlog. Items in backoff are left for a later pass, and so are a failing pixel's
 * retries beyond a few (`turnsOf`); items of the earlier layout (a bare ULID, no pixel in the key)
 * are taken as they come.
 */
export async function drainShard(shard: number, options: ConsumeOptions & { limit?: number } = {}): Promise<PassResult> {
  const { limit = DRAIN_BATCH, ...consumeOptions } = options;
  const pass: PassResult = { done: 0, retrying: 0, parked: 0, failed: 0 };
  let from: { op: '>' | '>='; key: string } | undefined;
  for (;;) {
    const { Items = [], LastEvaluatedKey } = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: 'GSI2',
        KeyConditionExpression: from ? `GSI2PK = :pk AND GSI2SK ${from.op} :from` : 'GSI2PK = :pk',
        ExpressionAttributeValues: { ':pk': pendingPartition(shard), ...(from ? { ':from': from.key } : {}) },
        Limit: limit,
      }),
    );
    let taken = Items;
    if (LastEvaluatedKey && Items.length > 0) {
      const lastKey = String(Items.at(-1)!.GSI2SK);
      const lastRun = runPrefixOf(lastKey);
      if (lastRun === undefined) from = { op: '>', key: lastKey };
      else if (runPrefixOf(String(Items[0]!.GSI2SK)) === lastRun) from = { op: '>', key: `${lastRun}${PAST_RUN}` };
      else {
        taken = Items.filter((item) => runPrefixOf(String(item.GSI2SK)) !== lastRun);
        from = { op: '>=', key: lastRun };
      }
    }
    const due = turnsOf(taken, new Date().toISOString());
    if (due.length > 0) {
      const result = await consumePending(due, consumeOptions);
      pass.done += result.done;
      pass.retrying += result.retrying.length;
      pass.parked += result.parked.length;
      pass.failed += result.failed.length;
    }
    if (!LastEvaluatedKey) return pass;
  }
}

/**
 * What of a page this pass consumes: everything but items in backoff (`retryAt` still ahead) and,
 * of each pixel's items that failed before (each projected alone), its oldest `RETRIES_PER_PASS`:
 * so a pixel whose entries all fail costs a pass at most one projection of its new entries and a
 * few of the old, and the pass goes on to the next pixel as soon as for a healthy one.
 */
export const RETRIES_PER_PASS = 10;

function turnsOf(items: ReadonlyArray<Record<string, unknown>>, now: string): Array<Record<string, unknown>> {
  const retries = new Map<string, number>();
  return items.filter((item) => {
    if (typeof item.retryAt === 'string' && item.retryAt > now) return false;
    if (attemptsOf(item) === 0) return true;
    const pixelId = pixelOfPending(item);
    const count = (retries.get(pixelId) ?? 0) + 1;
    retries.set(pixelId, count);
    return count <= RETRIES_PER_PASS;
  });
}

/**
 * Consumes everything pending, shard after shard, until the index is empty: for tests, the
 * import and the rebuild CLI. A failed item is tried again on the next pass (no backoff: nothing
 * else waits on this call), alone; the call throws when passes keep failing (3 in a row), and once
 * the index is empty if an item was parked meanwhile. Items in backoff from another drain are
 * left for their time.
 */
const FAILING_PASSES = 3;
const DRAIN_ALL_RETRY = { ...PENDING_RETRY, backoffMs: () => 0 };

export async function drainAll(options: ConsumeOptions & { maxPasses?: number } = {}): Promise<number> {
  const { maxPasses = 1000, retry = DRAIN_ALL_RETRY, ...projectOptions } = options;
  const passOptions = { ...projectOptions, retry };
  let total = 0;
  let parked = 0;
  let failingPasses = 0;
  for (let pass = 0; pass < maxPasses; pass++) {
    // Every shard's pass settles before the next starts (or before this throws): a projection
    // left running would race the next pass over the same pixel.
    const settled = await Promise.allSettled(Array.from({ length: PENDING_SHARDS }, (_, shard) => drainShard(shard, passOptions)));
    const results = settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : { done: 0, retrying: 0, parked: 0, failed: 1 }));
    const sum = (field: keyof PassResult) => results.reduce((count, result) => count + result[field], 0);
    const done = sum('done');
    const failed = sum('retrying') + sum('parked') + sum('failed');
    total += done;
    parked += sum('parked');
    if (failed > 0) {
      // A failure may be passing (a version conflict with another consumer, a throttled call):
      // the items are still pending, so the next pass tries them again, a few times.
      if (++failingPasses >= FAILING_PASSES) {
        const error = settled.find((outcome) => outcome.status === 'rejected')?.reason as unknown;
        throw new Error(`${failed} pending item(s) or shard read(s) failed to project`, error === undefined ? undefined : { cause: error });
      }
      continue;
    }
    failingPasses = 0;
    if (done === 0) {
      if (parked > 0) throw new Error(`${parked} pending item(s) kept failing and were parked (npm run replay-parked -- list)`);
      return total;
    }
  }
  throw new Error('The pending index did not empty');
}

export interface RunningDrain {
  close(): Promise<void>;
}

/**
 * Starts the polling loops; `close` stops them after the pass in flight. The analytics store's
 * compactions that passes note run beside them (compaction-runner.ts): a pass never waits for
 * one, so a compaction holds up no pixel's projection; `close` lets the one in flight finish.
 */
export function startDrain(options: ConsumeOptions & { idlePollMs?: number } = {}): RunningDrain {
  const { idlePollMs = IDLE_POLL_MS, ...projectOptions } = options;
  let stopped = false;
  const compactions = startCompactionLoop();
  const sleepers = new Set<() => void>();
  // An empty shard's sleep, ended early by a pending item of that shard written meanwhile.
  const idleWakers = new Map<number, () => void>();
  // Shards that gained a pending item while their loop was polling: the poll may have missed it.
  const announced = new Set<number>();
  const stopListening = onPendingWritten((shard) => {
    const wake = idleWakers.get(shard);
    if (wake) wake();
    else announced.add(shard);
  });
  const sleep = (ms: number, shard?: number) =>
    new Promise<void>((resolve) => {
      // A pass that ends after `close` must not go to sleep: nothing would wake it.
      if (stopped) return resolve();
      const wake = () => {
        clearTimeout(timer);
        sleepers.delete(wake);
        if (shard !== undefined) idleWakers.delete(shard);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      sleepers.add(wake);
      if (shard !== undefined) idleWakers.set(shard, wake);
    });
  const loop = async (shard: number) => {
    let backoff = FIRST_BACKOFF_MS;
    while (!stopped) {
      try {
        announced.delete(shard);
        const { done, failed } = await drainShard(shard, projectOptions);
        compactions.kick();
        if (failed > 0) {
          // The store refuses even the failure records: it is the store that fails, so the shard
          // pauses, longer while that goes on. Failures that were recorded pause nothing: those
          // items wait for their own backoff while the rest of the shard goes on.
          backoff = Math.min(backoff * 2, 5_000);
          await sleep(backoff);
        } else {
          backoff = FIRST_BACKOFF_MS;
          if (done === 0 && !announced.has(shard)) await sleep(idlePollMs, shard);
        }
      } catch (error) {
        logger.error('The pending-index drain failed a pass; retrying', { error, shard });
        await sleep(1_000);
      }
    }
  };
  const loops = Array.from({ length: PENDING_SHARDS }, (_, shard) => loop(shard));
  return {
    close: async () => {
      stopped = true;
      stopListening();
      for (const wake of [...sleepers]) wake();
      await Promise.all(loops);
      await compactions.close();
    },
  };
}
