import { createHash } from 'node:crypto';

/**
 * Which files of a date a compaction merges. Pure: names, levels and sizes in, a plan out.
 *
 * A file's level is how many merges its rows went through: a file a writer appended is level 0, a
 * compaction's output `c<level>-<digest>` is one level above the highest of its inputs. Merging
 * by level (size-tiered) rewrites each row about once per level instead of once per compaction: a
 * date that receives a file per drain pass all day (tens of thousands) has 3 or 4 levels, and at
 * most THRESHOLD - 1 files of each.
 */

/**
 * Level-0 files a date may hold before it is compacted. A pass of the consumer writes at most one
 * file per pixel, table and date, so a busy pixel's today gains a file per pass; 16 keeps what a
 * reader opens for a date small (a file costs DuckDB a footer read, and a Lambda a GET) while a
 * merge of 16 pass-sized files costs a fraction of a second, and 16 per level keeps the levels few.
 */
export const COMPACTION_THRESHOLD = 16;

/**
 * What one automatic compaction reads at most. It runs in the consumer's process (the stream
 * function deployed, the drain's thread locally), so it must finish in a second or two and fit in
 * the function's memory beside DuckDB's sort: 16 MB of Parquet is a few hundred thousand events.
 * Files beyond it are big enough to be read as they are; `npm run compact` merges without a cap.
 */
export const AUTO_MAX_INPUT_BYTES = 16 * 1024 * 1024;

const COMPACTED_NAME = /^c(\d+)-[0-9a-f]{24}$/;

/** A file's level: 0 for an appended file, else the level its compacted name carries. */
export function levelOf(name: string): number {
  const match = COMPACTED_NAME.exec(name);
  return match ? Number(match[1]) : 0;
}

/**
 * The name of the file merging `inputs` (of one date: its key holds the table, pixel and date):
 * derived from the input names alone, so a compaction run again on the same files writes the same
 * name, and the same rows, instead of leaving another file behind.
 */
export function compactedName(inputs: readonly string[], level: number): string {
  const digest = createHash('sha256').update(JSON.stringify([...inputs].sort())).digest('hex').slice(0, 24);
  return `c${level}-${digest}`;
}

/** Whether a live set calls for an automatic compaction: THRESHOLD files at level 0. By names only, so a writer can tell from what an append returns. */
export function isDue(files: readonly string[], threshold = COMPACTION_THRESHOLD): boolean {
  let level0 = 0;
  for (const name of files) if (levelOf(name) === 0 && ++level0 >= threshold) return true;
  return false;
}

export interface PlannedFile {
  name: string;
  size: number;
}

export interface CompactionPlan {
  inputs: string[];
  level: number;
  bytes: number;
}

/**
 * - `tiered` (the consumer, as files arrive): the level-0 files once there are THRESHOLD of them,
 *   and with them each next level that would then reach THRESHOLD (its files plus the new one),
 *   while the total stays within `maxBytes`; a level that does not fit whole gives its smallest
 *   files. So the live set keeps fewer than THRESHOLD files per level.
 * - `whole` (a date that is over, the operator): every file, smallest first while within
 *   `maxBytes`: one file per date when the date fits.
 * Undefined when fewer than two files would merge.
 */
export function planCompaction(files: readonly PlannedFile[], mode: 'tiered' | 'whole', options: { maxBytes?: number; threshold?: number } = {}): CompactionPlan | undefined {
  const { maxBytes = Number.POSITIVE_INFINITY } = options;
  const threshold = Math.max(2, options.threshold ?? COMPACTION_THRESHOLD);
  const bySize = [...files].sort((a, b) => a.size - b.size || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const inputs: PlannedFile[] = [];
  let bytes = 0;
  const take = (file: PlannedFile): boolean => {
    if (bytes + file.size > maxBytes) return false;
    inputs.push(file);
    bytes += file.size;
    return true;
  };

  if (mode === 'whole') {
    for (const file of bySize) if (!take(file)) break;
  } else {
    const levels = new Map<number, PlannedFile[]>();
    for (const file of bySize) {
      const level = levelOf(file.name);
      const group = levels.get(level);
      if (group) group.push(file);
      else levels.set(level, [file]);
    }
    let group = levels.get(0) ?? [];
    for (let level = 0; group.length >= (level === 0 ? threshold : threshold - 1); ) {
      // A level that does not fit whole gives what fits, and nothing above it joins.
      if (!group.every(take)) break;
      // The merge is one file of the next level: that level joins when it would then reach the threshold.
      level += 1;
      group = levels.get(level) ?? [];
    }
  }
  if (inputs.length < 2) return undefined;
  const level = Math.max(...inputs.map((file) => levelOf(file.name))) + 1;
  return { inputs: inputs.map((file) => file.name).sort(), level, bytes };
}
