import { logger } from '../../config/logger';
import { withDeadline } from '../../request-deadline';
import { compactPartition, sweepReplacedFiles, type CompactionReport, type SweepReport } from './compaction';
import { AUTO_MAX_INPUT_BYTES, isDue } from './compaction-plan';
import type { PartitionFiles } from './partitions';
import type { TableDefinition } from './tables';

/**
 * When compaction runs: a writer's append tells it. `appendRows` hands each date's live set, as
 * the append left it (no extra call), to `noteAppend`, which notes the date when it is due:
 *
 * - THRESHOLD level-0 files (compaction-plan.ts): its small files are merged (`tiered`);
 * - its first file ever, for a date not ahead of this process's clock: the date before it is
 *   probably over and is merged whole, so past dates end as one file (late events add small
 *   files that the first rule merges again). A date ahead (a client's clock running fast) says
 *   nothing about today being over. A table partitioned by bucket (orders) has no day that ends:
 *   only the first rule applies.
 *
 * The process that appended runs what it noted, off the path of the projection: the local drain
 * on its thread beside the passes (`startCompactionLoop`), never holding one up; the stream
 * function after its batch is projected, within the invocation's time (`runNotedCompactions`).
 * A CLI that appends (a rebuild) leaves what it noted to `npm run compact`. A failure is logged
 * and forgotten: the date is noted again by its next append, and nothing a failed compaction left
 * is ever read (compaction.ts).
 */
interface Noted {
  table: TableDefinition;
  pixelId: string;
  date: string;
  mode: 'tiered' | 'whole';
}

const noted = new Map<string, Noted>();
/** A process that appends and never runs what it notes (a test, a CLI) keeps at most this many. */
const MAX_NOTED = 10_000;

/** The sweep of replaced files (compaction.ts) runs with compactions at most this often, and settles at most SWEEP_LIMIT partitions a time. */
const SWEEP_INTERVAL_MS = 60_000;
const SWEEP_LIMIT = 20;
/** A compaction is started only with this much time left before the caller's deadline (it takes a second or two at most, see AUTO_MAX_INPUT_BYTES). */
const MIN_TIME_LEFT_MS = 4_000;

function note(entry: Noted): void {
  const key = `${entry.table.name}\u0000${entry.pixelId}\u0000${entry.date}`;
  const held = noted.get(key);
  // A whole merge covers a tiered one.
  if (held?.mode === 'whole') return;
  noted.delete(key);
  noted.set(key, entry);
  if (noted.size > MAX_NOTED) noted.delete(noted.keys().next().value!);
}

/** Notes a date an append just changed if it is due for compaction, and the date before a date's first file. */
export function noteAppend(table: TableDefinition, pixelId: string, partition: PartitionFiles, now = Date.now()): void {
  if (isDue(partition.files)) note({ table, pixelId, date: partition.date, mode: 'tiered' });
  if (table.buckets === undefined && partition.version === 1 && partition.date <= new Date(now).toISOString().slice(0, 10)) {
    const previous = new Date(Date.parse(`${partition.date}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    note({ table, pixelId, date: previous, mode: 'whole' });
  }
}

/** Dates noted and not yet run (tests). */
export function notedCompactions(): Array<{ table: string; pixelId: string; date: string; mode: 'tiered' | 'whole' }> {
  return [...noted.values()].map(({ table, ...rest }) => ({ table: table.name, ...rest }));
}

export interface RunResult {
  compactions: CompactionReport[];
  failures: number;
  swept?: SweepReport;
}

let lastSweep = Number.NEGATIVE_INFINITY;
let running: Promise<unknown> = Promise.resolve();

/**
 * Runs what was noted (of one pixel, or all), one compaction at a time in this process, then
 * the sweep when it is due; starts nothing once less than a few seconds are left before
 * `deadline` (epoch ms). Never throws: each failure is logged at warn and counted.
 */
export function runNotedCompactions(options: { pixelId?: string; deadline?: number; now?: () => number; graceMs?: number } = {}): Promise<RunResult> {
  const run = running.then(() => runNow(options));
  running = run.catch(() => undefined);
  return run;
}

async function runNow(options: { pixelId?: string; deadline?: number; now?: () => number; graceMs?: number }): Promise<RunResult> {
  const { pixelId, deadline = Number.POSITIVE_INFINITY, now = Date.now, graceMs } = options;
  const result: RunResult = { compactions: [], failures: 0 };
  const timeLeft = () => deadline - Date.now() >= MIN_TIME_LEFT_MS;
  for (const [key, entry] of [...noted]) {
    if (pixelId !== undefined && entry.pixelId !== pixelId) continue;
    if (!timeLeft()) break;
    noted.delete(key);
    try {
      // Held to the deadline as a request is: a merge still running near it is interrupted, which
      // leaves nothing a reader sees (compaction.ts), instead of the invocation being cut off.
      const run = () => compactPartition(entry.table, entry.pixelId, entry.date, { mode: entry.mode, maxInputBytes: AUTO_MAX_INPUT_BYTES, now, ...(graceMs === undefined ? {} : { graceMs }) });
      result.compactions.push(await withDeadline(Number.isFinite(deadline) ? deadline : undefined, run));
    } catch (error) {
      result.failures += 1;
      logger.warn('Compacting a date of the analytics store failed; its next append notes it again', { table: entry.table.name, pixelId: entry.pixelId, date: entry.date, mode: entry.mode, error });
    }
  }
  if (now() - lastSweep >= SWEEP_INTERVAL_MS && timeLeft()) {
    lastSweep = now();
    try {
      result.swept = await sweepReplacedFiles({ limit: SWEEP_LIMIT, now, ...(graceMs === undefined ? {} : { graceMs }) });
    } catch (error) {
      result.failures += 1;
      logger.warn('Sweeping replaced files of the analytics store failed; the next sweep tries again', { error });
    }
  }
  return result;
}

/** Whether running now would do anything: something noted, or the sweep due. */
export function compactionWork(now = Date.now()): boolean {
  return noted.size > 0 || now - lastSweep >= SWEEP_INTERVAL_MS;
}

/**
 * The local drain's compactions: `kick` after each pass starts a background run of what was
 * noted unless one is going; the passes never wait for it. `close` lets the run in flight finish.
 */
export function startCompactionLoop(): { kick(): void; close(): Promise<void> } {
  let stopped = false;
  let loop: Promise<void> | undefined;
  return {
    kick() {
      if (stopped || loop || !compactionWork()) return;
      loop = (async () => {
        // What was noted while a run went on is run next.
        do await runNotedCompactions();
        while (!stopped && noted.size > 0);
      })().finally(() => {
        loop = undefined;
      });
    },
    async close() {
      stopped = true;
      await loop;
    },
  };
}
