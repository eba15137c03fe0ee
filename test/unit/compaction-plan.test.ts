import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { COMPACTION_THRESHOLD, compactedName, isDue, levelOf, planCompaction, type PlannedFile } from '../../shared/analytics/store/compaction-plan';

const appended = (n: number): PlannedFile => ({ name: `01KC${String(n).padStart(22, '0')}-${'a'.repeat(20)}`, size: 1_000 + (n % 7) * 100 });

/**
 * Appends files one at a time, compacting (tiered) whenever the live set is due, as the consumer
 * does: what the live set looks like and how often each appended file's rows were rewritten.
 */
function simulate(appends: number, options: { maxBytes?: number } = {}) {
  let live: PlannedFile[] = [];
  const merged = new Map<string, string[]>();
  const rewrites = new Map<string, number>();
  const sourcesOf = (name: string): string[] => merged.get(name)?.flatMap(sourcesOf) ?? [name];
  let maxLive = 0;
  for (let n = 0; n < appends; n++) {
    live.push(appended(n));
    maxLive = Math.max(maxLive, live.length);
    if (!isDue(live.map((file) => file.name))) continue;
    const plan = planCompaction(live, 'tiered', options);
    if (!plan) continue;
    const output = { name: compactedName(plan.inputs, plan.level), size: plan.bytes };
    merged.set(output.name, plan.inputs);
    for (const source of plan.inputs.flatMap(sourcesOf)) rewrites.set(source, (rewrites.get(source) ?? 0) + 1);
    live = [...live.filter((file) => !plan.inputs.includes(file.name)), output];
  }
  return { live, maxLive, rewrites, sourcesOf };
}

describe('compaction plans', () => {
  it('a file is level 0 unless compaction named it; the name derives from the inputs alone, whatever their order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.stringMatching(/^[0-9A-Z]{4,30}$/), { minLength: 2, maxLength: 20 }), fc.integer({ min: 1, max: 9 }), (names, level) => {
        for (const name of names) expect(levelOf(name)).toBe(0);
        const name = compactedName(names, level);
        expect(levelOf(name)).toBe(level);
        expect(compactedName([...names].reverse(), level)).toBe(name);
        expect(compactedName(names.slice(1), level)).not.toBe(name);
      }),
    );
  });

  it('is due at 16 level-0 files, not before, whatever the compacted files beside them', () => {
    const compacted = compactedName(['x', 'y'], 1);
    const files = Array.from({ length: COMPACTION_THRESHOLD }, (_, n) => appended(n).name);
    expect(isDue(files.slice(1))).toBe(false);
    expect(isDue([...files.slice(1), compacted])).toBe(false);
    expect(isDue(files)).toBe(true);
  });

  it('tiered: every row is rewritten about once per level, and a date keeps fewer than 16 files per level (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3_000 }), (appends) => {
        const { live, maxLive, rewrites, sourcesOf } = simulate(appends);
        // No row lost or doubled: the live files hold every appended file exactly once.
        const sources = live.flatMap((file) => sourcesOf(file.name)).sort();
        expect(sources).toEqual(Array.from({ length: appends }, (_, n) => appended(n).name).sort());
        const levels = Math.max(0, ...live.map((file) => levelOf(file.name)));
        for (let level = 0; level <= levels; level++) expect(live.filter((file) => levelOf(file.name) === level).length).toBeLessThan(COMPACTION_THRESHOLD);
        expect(maxLive).toBeLessThanOrEqual(COMPACTION_THRESHOLD * (levels + 1));
        // Write amplification: a row is rewritten once per level it climbs, never more.
        expect(Math.max(0, ...rewrites.values())).toBeLessThanOrEqual(levels);
        expect(levels).toBeLessThanOrEqual(Math.ceil(Math.log(appends + 1) / Math.log(COMPACTION_THRESHOLD)));
      }),
      { numRuns: 40 },
    );
  });

  it('tiered with a cap: never reads more than the cap, and files above it stay as they are (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 16, max: 2_000 }), fc.integer({ min: 20_000, max: 200_000 }), (appends, maxBytes) => {
        const { live } = simulate(appends, { maxBytes });
        for (const file of live) expect(file.size).toBeLessThanOrEqual(maxBytes);
        expect(live.filter((file) => levelOf(file.name) === 0).length).toBeLessThan(COMPACTION_THRESHOLD);
      }),
      { numRuns: 40 },
    );
  });

  it('whole: every file, or the smallest that fit the cap; nothing when fewer than two would merge', () => {
    const files = [appended(1), appended(2), { name: compactedName(['a', 'b'], 2), size: 50_000 }];
    expect(planCompaction(files, 'whole')).toEqual({ inputs: files.map((file) => file.name).sort(), level: 3, bytes: 1_100 + 1_200 + 50_000 });
    expect(planCompaction(files, 'whole', { maxBytes: 10_000 })).toEqual({ inputs: [appended(1).name, appended(2).name].sort(), level: 1, bytes: 2_300 });
    expect(planCompaction(files, 'whole', { maxBytes: 2_000 })).toBeUndefined();
    expect(planCompaction([appended(1)], 'whole')).toBeUndefined();
  });
});
