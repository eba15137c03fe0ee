import { randomUUID } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logger } from '../../config/logger';
import { beginRemoval, endRemoval, noteRetired, readLedger, releaseLease, swapCompacted, takeLease, type PartitionLedger } from './compaction-ledger';
import { AUTO_MAX_INPUT_BYTES, compactedName, planCompaction, type CompactionPlan } from './compaction-plan';
import { sqlString, withDuckDB } from './duckdb';
import type { ObjectStore } from './object-store';
import { fileKeyOf } from './partitions';
import { analyticsStore } from './store-config';
import { compactionSelect, type TableDefinition } from './tables';

/**
 * Compaction of a pixel's table, one UTC date at a time: some of the date's files (see
 * compaction-plan.ts) are merged into ONE file, through the table's compaction SELECT
 * (tables.ts), which replaces them in the live set in one conditional write. A reader lists the
 * date's files before that write or after it, so it reads the date once either way, never half.
 *
 * The steps, each safe to cut short (compaction-ledger.ts has the attributes they use):
 *   1. take the partition's lease (one compaction or sweep of a partition at a time);
 *   2. settle what earlier holders left: remove files whose removal time has come and that are
 *      not live (outputs never swapped in, replaced files past the grace);
 *   3. plan; record the output as removable at once (until the swap makes it live), and leave a
 *      hint under `_compacted/` so the sweep finds this partition even if nothing compacts it again;
 *   4. write the output, named from its inputs: a run again on the same files writes the same
 *      name and rows instead of leaving another file behind;
 *   5. swap: inputs out, output in, inputs removable after the grace, on the version read. An
 *      append in between makes it fail: the inputs all still live, it is made again on the new
 *      version (the output depends on its inputs only), a bounded number of times;
 *   6. give the lease back.
 *
 * Replaced files stay readable for GRACE_MS after the swap: a reader holds a date's file list for
 * at most a request (a function's timeout is 10 s, a local request's well under a minute). Then a
 * holder (the next compaction, or the sweep) hands them to the store's `retire`: deleted locally;
 * tagged `compacted=true` in the bucket, whose lifecycle rule expires them a day later. Tagging
 * only after the grace matters: S3 counts a rule's days from an object's creation, so a file
 * tagged at the swap could be expired by the next lifecycle run under a reader that just listed it.
 */
export const GRACE_MS = 10 * 60_000;

/** How long a compaction may hold a partition before another may take over (an automatic one takes seconds). */
export const LEASE_MS = 2 * 60_000;

/** Swaps tried when appends keep coming in between. */
const MAX_SWAP_ATTEMPTS = 5;

/** Where the sweep's hints live: one object per partition that may hold files to remove. */
export const HINT_PREFIX = '_compacted/';
export const hintKeyOf = (table: string, pixelId: string, date: string) => `${HINT_PREFIX}${table}/${pixelId}/${date}.json`;

const WORK_DIR = join(tmpdir(), 'analytics-compactions');

export interface CompactOptions {
  /** `tiered` (default): the small files, once there are enough; `whole`: every file. */
  mode?: 'tiered' | 'whole';
  /** Input bytes one compaction reads at most (default: AUTO_MAX_INPUT_BYTES tiered, no cap whole). */
  maxInputBytes?: number;
  /** Level-0 files that make a tiered compaction (default COMPACTION_THRESHOLD). */
  threshold?: number;
  graceMs?: number;
  leaseMs?: number;
  /** The clock, in epoch ms (tests move it). */
  now?: () => number;
}

export interface CompactionReport {
  table: string;
  pixelId: string;
  date: string;
  /**
   * `compacted`: the output is live; `nothing`: no files to merge; `busy`: another compaction
   * holds the partition; `superseded`: the inputs changed or the lease was lost before the swap
   * (nothing was replaced; the output, never live, is removed by this run or the next holder).
   */
  outcome: 'compacted' | 'nothing' | 'busy' | 'superseded';
  filesIn: number;
  rows: number;
  bytesIn: number;
  bytesOut: number;
  ms: number;
  output?: string;
  /** Swaps tried: more than one when appends came in between. */
  swaps: number;
  /** Files this run handed to their removal. */
  removed: number;
}

export async function compactPartition(table: TableDefinition, pixelId: string, date: string, options: CompactOptions = {}): Promise<CompactionReport> {
  const { mode = 'tiered', graceMs = GRACE_MS, leaseMs = LEASE_MS, now = Date.now } = options;
  const maxBytes = options.maxInputBytes ?? (mode === 'tiered' ? AUTO_MAX_INPUT_BYTES : Number.POSITIVE_INFINITY);
  const started = performance.now();
  const store = analyticsStore();
  const report: CompactionReport = { table: table.name, pixelId, date, outcome: 'nothing', filesIn: 0, rows: 0, bytesIn: 0, bytesOut: 0, ms: 0, swaps: 0, removed: 0 };
  const done = (outcome: CompactionReport['outcome']) => Object.assign(report, { outcome, ms: Math.round(performance.now() - started) });

  const owner = randomUUID();
  if (!(await takeLease(pixelId, table.name, date, owner, now() + leaseMs, now()))) {
    // No item (a date without files) or another holder.
    return done((await readLedger(pixelId, table.name, date)) ? 'busy' : 'nothing');
  }
  const settle = async () => {
    const settled = await settlePartition(store, table.name, pixelId, date, owner, now());
    report.removed += settled?.removed ?? 0;
    return settled?.ledger;
  };
  try {
    let ledger = await settle();
    if (!ledger) return done('busy');

    const plan = await planWithSizes(store, table.name, pixelId, date, ledger.files, mode, { maxBytes, ...(options.threshold === undefined ? {} : { threshold: options.threshold }) });
    if (!plan) return done('nothing');
    const output = compactedName(plan.inputs, plan.level);
    Object.assign(report, { filesIn: plan.inputs.length, bytesIn: plan.bytes, output });

    if (!(await noteRetired(pixelId, table.name, date, owner, [{ name: output, at: now() }]))) return done('superseded');
    await store.put(hintKeyOf(table.name, pixelId, date), new TextEncoder().encode(JSON.stringify({ table: table.name, pixelId, date })));
    const written = await writeCompacted(store, table, plan.inputs.map((name) => fileKeyOf(table.name, pixelId, date, name)));
    Object.assign(report, { rows: written.rows, bytesOut: written.bytes });
    await store.putFile(fileKeyOf(table.name, pixelId, date, output), written.path);

    for (let attempt = 1; ; attempt++) {
      report.swaps = attempt;
      if (await swapCompacted(pixelId, table.name, ledger, owner, { inputs: plan.inputs, output, removableAt: now() + graceMs })) break;
      const fresh = await readLedger(pixelId, table.name, date);
      // Another holder took over: what this run wrote is theirs to settle.
      if (!fresh || fresh.lease?.owner !== owner) return done('superseded');
      const live = new Set(fresh.files);
      // The swap went through after all: an attempt whose answer was lost, refused when the SDK sent it again.
      if (live.has(output) && !plan.inputs.some((name) => live.has(name))) break;
      if (attempt >= MAX_SWAP_ATTEMPTS || !plan.inputs.every((name) => live.has(name))) {
        // Never live: removed now, while this run still holds the partition.
        await settle();
        return done('superseded');
      }
      ledger = fresh;
    }
    done('compacted');
    logger.info('Compacted a date of the analytics store', { ...report, mode });
    return report;
  } finally {
    await releaseLease(pixelId, table.name, date, owner);
  }
}

/**
 * Settles a partition whose lease `owner` holds: removes every file whose removal time has come
 * and that is not live, and what an earlier holder was removing when it stopped. The removal is
 * marked on the item first, in a write conditional on the version read, so an append of one of
 * those names either came before (the name is live, and kept) or waits for the removal to end
 * (compaction-ledger.ts). Undefined when the lease is lost.
 */
async function settlePartition(store: ObjectStore, table: string, pixelId: string, date: string, owner: string, now: number): Promise<{ ledger: PartitionLedger; removed: number } | undefined> {
  for (let attempt = 1; attempt <= MAX_SWAP_ATTEMPTS; attempt++) {
    const ledger = await readLedger(pixelId, table, date);
    if (!ledger || ledger.lease?.owner !== owner) return undefined;
    const live = new Set(ledger.files);
    // A name waits for its latest entry.
    const removableAt = new Map<string, number>();
    for (const { name, at } of ledger.retired) removableAt.set(name, Math.max(at, removableAt.get(name) ?? at));
    const due = new Set([...removableAt].filter(([name, at]) => at <= now && !live.has(name)).map(([name]) => name));
    for (const name of ledger.removing) if (!live.has(name)) due.add(name);
    // Entries of a live name say nothing any more; those of a name removed now are done with.
    const forget = ledger.retired.filter(({ name }) => live.has(name) || due.has(name)).map(({ entry }) => entry);
    const retired = ledger.retired.filter(({ name }) => !live.has(name) && !due.has(name));
    if (due.size === 0 && forget.length === 0 && ledger.removing.length === 0) return { ledger, removed: 0 };
    // Refused when an append came in between: read again.
    if (!(await beginRemoval(pixelId, table, ledger, owner, [...due], forget))) continue;
    if (due.size > 0) await store.retire([...due].map((name) => fileKeyOf(table, pixelId, date, name)));
    await endRemoval(pixelId, table, date, owner);
    return { ledger: { ...ledger, retired, removing: [] }, removed: due.size };
  }
  // Appends kept coming: the next holder settles it.
  return undefined;
}

async function planWithSizes(
  store: ObjectStore,
  table: string,
  pixelId: string,
  date: string,
  files: readonly string[],
  mode: 'tiered' | 'whole',
  limits: { maxBytes: number; threshold?: number },
): Promise<CompactionPlan | undefined> {
  // Sizes only of the files a plan without a cap would take: with one it takes fewer of them.
  const candidates = planCompaction(
    files.map((name) => ({ name, size: 0 })),
    mode,
    { threshold: limits.threshold },
  );
  if (!candidates) return undefined;
  const sized = await Promise.all(
    candidates.inputs.map(async (name) => {
      const key = fileKeyOf(table, pixelId, date, name);
      const size = await store.size(key);
      if (size === undefined) throw new Error(`The live file '${key}' is missing from the analytics store`);
      return { name, size };
    }),
  );
  return planCompaction(sized, mode, limits);
}

/**
 * Writes the rows the table's compaction SELECT makes of `keys` as one local Parquet file: the
 * table's columns in its order (a file written before a column was added reads it as NULL),
 * sorted by the partition column and then by every other column, so the same inputs give the
 * same file.
 */
async function writeCompacted(store: ObjectStore, table: TableDefinition, keys: readonly string[]): Promise<{ path: string; rows: number; bytes: number }> {
  await mkdir(WORK_DIR, { recursive: true });
  const path = join(WORK_DIR, `${randomUUID()}.parquet`);
  const names = table.columns.map((column) => `"${column.name}"`);
  const casts = table.columns.map((column) => `CAST("${column.name}" AS ${column.type}) AS "${column.name}"`).join(', ');
  const order = [`"${table.partitionedBy}"`, ...names.filter((name) => name !== `"${table.partitionedBy}"`)].join(', ');
  const rows = await store.withLocalFiles(keys, (paths) =>
    withDuckDB(async (connection) => {
      const input = `(SELECT ${casts} FROM read_parquet([${paths.map(sqlString).join(', ')}], union_by_name = true, hive_partitioning = false))`;
      const result = await connection.runAndReadAll(
        `COPY (SELECT ${names.join(', ')} FROM (${compactionSelect(table)(input)}) ORDER BY ${order}) TO ${sqlString(path)} (FORMAT parquet, COMPRESSION zstd)`,
      );
      return Number(result.getRows()[0]?.[0] ?? 0);
    }),
  );
  return { path, rows, bytes: (await stat(path)).size };
}

export interface SweepReport {
  /** Partitions whose hint was past the grace and were settled. */
  partitions: number;
  /** Files handed to their removal. */
  removed: number;
  /** Partitions left for a later sweep: held by a compaction, or with replaced files still in their grace. */
  pending: number;
}

/**
 * The sweep: every partition whose hint is older than the grace is settled (files whose removal
 * time has come are removed) and, once it has nothing left to remove, its hint goes. A busy
 * partition settles itself each time it is compacted; this is for the ones nothing compacts
 * again. Runs with the consumer's compactions (at most once a minute) and with `npm run compact`.
 * `limit` bounds the partitions one call settles.
 */
export async function sweepReplacedFiles(options: { graceMs?: number; leaseMs?: number; now?: () => number; limit?: number } = {}): Promise<SweepReport> {
  const { graceMs = GRACE_MS, leaseMs = LEASE_MS, now = Date.now, limit = Number.POSITIVE_INFINITY } = options;
  const store = analyticsStore();
  const report: SweepReport = { partitions: 0, removed: 0, pending: 0 };
  for (const { key, lastModified } of await store.list(HINT_PREFIX)) {
    if (report.partitions >= limit) break;
    const match = /^_compacted\/([^/]+)\/([^/]+)\/(\d{4}-\d{2}-\d{2}|\d{2})\.json$/.exec(key);
    if (!match) continue;
    if (lastModified.getTime() + graceMs > now()) {
      report.pending += 1;
      continue;
    }
    const [, table, pixelId, date] = match as unknown as [string, string, string, string];
    report.partitions += 1;
    const owner = randomUUID();
    if (!(await takeLease(pixelId, table, date, owner, now() + leaseMs, now()))) {
      // A date without an item has nothing to settle; a held one is its holder's to settle.
      if (await readLedger(pixelId, table, date)) report.pending += 1;
      else await store.delete([key]);
      continue;
    }
    try {
      const settled = await settlePartition(store, table, pixelId, date, owner, now());
      report.removed += settled?.removed ?? 0;
      // The hint goes while the lease is held, so no compaction can be writing a newer one meanwhile.
      if (settled && settled.ledger.retired.length === 0) await store.delete([key]);
      else report.pending += 1;
    } finally {
      await releaseLease(pixelId, table, date, owner);
    }
  }
  return report;
}
