import fc from 'fast-check';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { expect, it, vi } from 'vitest';
import { GRACE_MS, LEASE_MS, compactPartition, sweepReplacedFiles } from '../../shared/analytics/store/compaction';
import { levelOf } from '../../shared/analytics/store/compaction-plan';
import { sqlString, withDuckDB } from '../../shared/analytics/store/duckdb';
import { LIVE_EVENTS_SQL } from '../../shared/analytics/store/event-facts';
import { fileKeyOf, liveFiles, readPartition, replaceFiles } from '../../shared/analytics/store/partitions';
import { analyticsStore } from '../../shared/analytics/store/store-config';
import { appendRows } from '../../shared/analytics/store/table-writer';
import { EVENTS_TABLE, type TableDefinition } from '../../shared/analytics/store/tables';
import { documentClient } from '../../shared/store/dynamo-client';
import {
  DATE,
  InjectedFault,
  NEXT_DATE,
  START,
  answers,
  appendBatch,
  appendBatchAsNewFile,
  assertSameRows,
  bookkeeping,
  hookStoreCalls,
  liveByDate,
  liveRows,
  rowsOf,
  sameDistinctRows,
  storedFiles,
} from './compaction-fixtures';

/**
 * Compaction's guarantees, on whichever object store the calling file set up: a compaction, cut
 * short anywhere or raced by appends, never changes a query's answer, never leaves a row read
 * twice or lost, and once the grace is over leaves nothing in the store but the live files.
 * `isRetired` tells a retired object a store keeps (a bucket's tagged ones) from a live one.
 */
export function compactionSuite({ store, isRetired, long = true, propertyRuns = 60 }: { store: string; isRetired: (key: string) => Promise<boolean>; long?: boolean; propertyRuns?: number }): void {
  let pixels = 0;
  const pixel = (name: string) => `px_${store.replace(/\W/g, '')}_${name}_${pixels++}`;
  // Appends, then a retried batch holding entries already written (the same rows again, in a new file).
  const BATCHES = [[1], [2], [3], [4], [5], [3, 6]];

  it('merges 16 appended files of a date into one with the same rows; every answer is as before', async () => {
    const pixelId = pixel('tiered');
    const reference = pixel('tiered_ref');
    const batches = [...Array.from({ length: 15 }, (_, i) => [i + 1]), [2, 16]];
    for (const target of [pixelId, reference]) for (const batch of batches) await appendBatch(target, batch);
    const before = await liveRows(pixelId, DATE);
    expect((await liveByDate(pixelId))[DATE]).toHaveLength(16);

    const report = await compactPartition(EVENTS_TABLE, pixelId, DATE);
    expect(report).toMatchObject({ outcome: 'compacted', filesIn: 16 });
    const live = (await liveByDate(pixelId))[DATE]!;
    expect(live).toEqual([report.output]);
    expect(levelOf(live[0]!)).toBe(1);
    // The same rows, each once: entry 2 was written twice and its copies are identical rows.
    const after = await liveRows(pixelId, DATE);
    expect(assertSameRows(after, before)).toBeUndefined();
    expect([...after.values()].every((count) => count === 1)).toBe(true);
    expect(report.rows).toBe(after.size);
    expect(await answers(pixelId)).toEqual(await answers(reference));
    // The next date had fewer files than the threshold: left as it was.
    expect((await liveByDate(pixelId))[NEXT_DATE]).toEqual((await liveByDate(reference))[NEXT_DATE]);
    // Sorted by the partition column: the rows come back in time order.
    const [path] = await Promise.all(live.map((name) => analyticsStore().localPath(fileKeyOf('events', pixelId, DATE, name))));
    const times = await withDuckDB(async (connection) => (await connection.runAndReadAll(`SELECT epoch_ms(ts) FROM read_parquet(${sqlString(path!)})`)).getRows().map(([at]) => Number(at)));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('a reader holding the file list from before a compaction reads the same answer during the grace; after it the sweep retires the replaced files', async () => {
    const pixelId = pixel('reader');
    for (const batch of BATCHES) await appendBatch(pixelId, batch);
    const held = (await liveFiles(pixelId, 'events', DATE, DATE))[0]!.files;
    const readHeld = async () => {
      const paths = await Promise.all(held.map((name) => analyticsStore().localPath(fileKeyOf('events', pixelId, DATE, name))));
      return withDuckDB(async (connection) =>
        (await connection.runAndReadAll(`SELECT event_id, name, epoch_ms(ts) AS at FROM (${LIVE_EVENTS_SQL(`read_parquet([${paths.map(sqlString).join(', ')}])`)}) ORDER BY ALL`)).getRowObjectsJS(),
      );
    };
    const answer = await readHeld();
    expect(answer.length).toBeGreaterThan(0);

    let clock = Date.now();
    const now = () => clock;
    expect(await compactPartition(EVENTS_TABLE, pixelId, DATE, { mode: 'whole', now })).toMatchObject({ outcome: 'compacted', filesIn: held.length });
    expect((await liveByDate(pixelId))[DATE]).toHaveLength(1);

    // Within the grace: a sweep and another compaction leave the held files alone.
    clock += GRACE_MS - 60_000;
    await sweepReplacedFiles({ now });
    await compactPartition(EVENTS_TABLE, pixelId, DATE, { mode: 'whole', now });
    expect(await readHeld()).toEqual(answer);
    expect(await bookkeeping(pixelId, DATE)).toEqual({ lease: false, retired: held.length, removing: [] });

    clock += 120_000;
    const swept = await sweepReplacedFiles({ now });
    expect(swept.removed).toBeGreaterThanOrEqual(held.length);
    expect(await bookkeeping(pixelId, DATE)).toEqual({ lease: false, retired: 0, removing: [] });
    const kept = await storedFiles(pixelId, isRetired);
    expect(kept.files[DATE]).toEqual((await liveByDate(pixelId))[DATE]);
    expect(kept.hints).toEqual([]);
  });

  it('an append between the read and the swap: the swap is made again on the new version, and the appended file stays live', async () => {
    const pixelId = pixel('race');
    for (const batch of BATCHES) await appendBatch(pixelId, batch);
    const before = (await liveByDate(pixelId))[DATE]!;
    // The append lands right before the swap (the compaction's first write after its output is stored).
    let stored = false;
    const hook = hookStoreCalls(async (_, name) => {
      if (name === 'store.putFile') stored = true;
      else if (stored && name === 'dynamodb.UpdateCommand') {
        stored = false;
        await appendBatch(pixelId, [7]);
      }
    });
    const report = await compactPartition(EVENTS_TABLE, pixelId, DATE, { mode: 'whole' });
    hook.restore();
    expect(report).toMatchObject({ outcome: 'compacted', filesIn: before.length, swaps: 2 });
    const live = (await liveByDate(pixelId))[DATE]!;
    expect(live).toHaveLength(2);
    expect(live).toContain(report.output);
    expect(live.find((name) => name !== report.output)).toMatch(/^01KC0+7-/);
  });

  it('a merged file appended again as its old copy is removed ends live and stored, whether the append comes before the removal is marked or during it', async () => {
    for (const at of ['before', 'during'] as const) {
      const pixelId = pixel(`reappend_${at}`);
      const reference = pixel(`reappend_${at}_ref`);
      for (const target of [pixelId, reference]) for (const batch of BATCHES) await appendBatch(target, batch);
      // The file of the first batch: what a retried projection of it writes again.
      const first = (await liveByDate(pixelId))[DATE]![0]!;
      // What earlier tests left is swept first, so the sweep below settles this pixel alone.
      await sweepReplacedFiles({ now: () => Date.now() + 2 * GRACE_MS });
      let clock = Date.now();
      const now = () => clock;
      expect(await compactPartition(EVENTS_TABLE, pixelId, DATE, { mode: 'whole', now })).toMatchObject({ outcome: 'compacted' });
      // Past the grace of the replaced files and of the sweep's hint.
      clock = Date.now() + GRACE_MS + 1;
      // The sweep's calls: list, lease, read, mark the removal, retire, end it, hint, release.
      let appending: Promise<void> | undefined;
      let updates = 0;
      const hook = hookStoreCalls(async (_, name) => {
        if (appending) return;
        if (at === 'before' && name === 'dynamodb.UpdateCommand' && ++updates === 2) {
          // Between the sweep's read and its mark: the mark is refused, and read again the file is live.
          appending = appendBatch(pixelId, BATCHES[0]!);
          await appending;
        } else if (at === 'during' && name === 'store.retire') {
          // Its copy is stored before the old one is removed, and may be what is removed: it is
          // refused until the removal is over, then stored again.
          appending = appendBatch(pixelId, BATCHES[0]!);
          await new Promise((resolve) => setTimeout(resolve, 300));
        }
      });
      const swept = await sweepReplacedFiles({ now });
      hook.restore();
      await appending;
      expect(appending, at).toBeDefined();
      // During the removal, the old copy of the file appended again is removed too, and stored again after.
      expect(swept.removed, at).toBe(at === 'before' ? BATCHES.length - 1 : BATCHES.length);
      const live = (await liveByDate(pixelId))[DATE]!;
      expect(live, at).toContain(first);
      expect((await storedFiles(pixelId, isRetired)).files[DATE], at).toEqual(live);
      expect(await analyticsStore().size(fileKeyOf('events', pixelId, DATE, first)), at).toBeGreaterThan(0);
      expect(await isRetired(fileKeyOf('events', pixelId, DATE, first)), at).toBe(false);
      expect(await answers(pixelId), at).toEqual(await answers(reference));
      expect(await bookkeeping(pixelId, DATE), at).toEqual({ lease: false, retired: 0, removing: [] });
      // Compacted again, the date is one file once more.
      clock += LEASE_MS + 1;
      await compactPartition(EVENTS_TABLE, pixelId, DATE, { mode: 'whole', now });
      expect((await liveByDate(pixelId))[DATE], at).toHaveLength(1);
      expect(await answers(pixelId), at).toEqual(await answers(reference));
    }
  });

  it('merges through the table\'s own compaction SELECT: one that keeps the latest version of each key', async () => {
    const table: TableDefinition = {
      name: 'versions',
      description: 'Versions of things; the read rule takes the highest version of each key',
      partitionedBy: 'at',
      columns: [
        { name: 'key', type: 'VARCHAR', description: 'what' },
        { name: 'version', type: 'INTEGER', description: 'which version' },
        { name: 'at', type: 'TIMESTAMP', description: 'when' },
      ],
      compactSql: (input) => `SELECT * FROM ${input} QUALIFY row_number() OVER (PARTITION BY "key" ORDER BY version DESC) = 1`,
    };
    const pixelId = pixel('custom');
    const at = new Date(START + 60_000);
    await appendRows(table, pixelId, 'a', new Map([[DATE, [['x', 1, at], ['y', 1, at]]]]));
    await appendRows(table, pixelId, 'b', new Map([[DATE, [['x', 2, at]]]]));
    await appendRows(table, pixelId, 'c', new Map([[DATE, [['y', 3, at], ['z', 1, at]]]]));
    const report = await compactPartition(table, pixelId, DATE, { mode: 'whole' });
    expect(report).toMatchObject({ outcome: 'compacted', filesIn: 3, rows: 3 });
    const [live] = await liveFiles(pixelId, 'versions', DATE, DATE);
    const path = await analyticsStore().localPath(fileKeyOf('versions', pixelId, DATE, live!.files[0]!));
    const rows = await withDuckDB(async (connection) => (await connection.runAndReadAll(`SELECT "key", version FROM read_parquet(${sqlString(path)}) ORDER BY ALL`)).getRows());
    expect(rows).toEqual([['x', 2], ['y', 3], ['z', 1]]);
  });

  it('inputs another writer replaced before the swap: nothing is swapped, and the output, never live, is removed at once', async () => {
    const pixelId = pixel('superseded');
    for (const batch of BATCHES) await appendBatch(pixelId, batch);
    const [first] = (await liveByDate(pixelId))[DATE]!;
    let stored = false;
    const hook = hookStoreCalls(async (_, name) => {
      if (name === 'store.putFile') stored = true;
      else if (stored && name === 'dynamodb.UpdateCommand') {
        stored = false;
        // Another writer (a re-import, say) takes one of the files out through the live set's own swap.
        const partition = await readPartition(pixelId, 'events', DATE);
        expect(await replaceFiles(pixelId, 'events', DATE, partition!.version, [first!], [])).toBe(true);
      }
    });
    const report = await compactPartition(EVENTS_TABLE, pixelId, DATE, { mode: 'whole' });
    hook.restore();
    expect(report).toMatchObject({ outcome: 'superseded', removed: 1 });
    const live = (await liveByDate(pixelId))[DATE]!;
    expect(live).not.toContain(report.output);
    expect(live).not.toContain(first);
    expect((await storedFiles(pixelId, isRetired)).files[DATE]).toEqual([...live, first].sort());
    expect(await bookkeeping(pixelId, DATE)).toEqual({ lease: false, retired: 0, removing: [] });
  });

  it('replaceFiles swaps names in and out of a live set in one write, on the version read only', async () => {
    const pixelId = pixel('replace');
    await appendBatch(pixelId, [1]);
    await appendBatch(pixelId, [2]);
    const partition = (await readPartition(pixelId, 'events', DATE))!;
    const [one, two] = partition.files as [string, string];
    expect(await replaceFiles(pixelId, 'events', DATE, partition.version, [one], [`${one}-again`])).toBe(true);
    expect((await liveByDate(pixelId))[DATE]).toEqual([two, `${one}-again`].sort());
    // The version read is gone: refused, and nothing changes.
    expect(await replaceFiles(pixelId, 'events', DATE, partition.version, [two], [])).toBe(false);
    const now = (await readPartition(pixelId, 'events', DATE))!;
    expect(now).toMatchObject({ files: [two, `${one}-again`].sort(), version: partition.version + 1 });
    // Every file out: the date has none.
    expect(await replaceFiles(pixelId, 'events', DATE, now.version, now.files, [])).toBe(true);
    expect((await liveByDate(pixelId))[DATE]).toBeUndefined();
  });

  it('a swap that went through, though its answer was lost and the retry the SDK sent was refused, counts as done', async () => {
    const pixelId = pixel('lost_swap');
    for (const batch of BATCHES) await appendBatch(pixelId, batch);
    const send = documentClient.send.bind(documentClient);
    const spy = vi.spyOn(documentClient, 'send').mockImplementation((async (command: unknown) => {
      if (command instanceof UpdateCommand && String(command.input.UpdateExpression).startsWith('SET #files')) {
        // The first attempt is written; what comes back is the retry's answer: the version it was conditional on is gone.
        await send(command as never);
      }
      return send(command as never);
    }) as never);
    const report = await compactPartition(EVENTS_TABLE, pixelId, DATE, { mode: 'whole' });
    spy.mockRestore();
    expect(report).toMatchObject({ outcome: 'compacted', removed: 0 });
    expect((await liveByDate(pixelId))[DATE]).toEqual([report.output]);
    expect((await storedFiles(pixelId, isRetired)).files[DATE]).toContain(report.output);
  });

  it('keeps every row, copies too, of a table whose identical rows may be two facts', async () => {
    const table: TableDefinition = {
      name: 'tallies',
      description: 'Counted things; two equal rows are two things',
      partitionedBy: 'at',
      columns: [
        { name: 'what', type: 'VARCHAR', description: 'what' },
        { name: 'at', type: 'TIMESTAMP', description: 'when' },
      ],
    };
    const pixelId = pixel('generic');
    const row = ['apple', new Date(START + 60_000)];
    for (const name of ['a', 'b', 'c']) await appendRows(table, pixelId, name, new Map([[DATE, [row, row]]]));
    expect(await compactPartition(table, pixelId, DATE, { mode: 'whole' })).toMatchObject({ outcome: 'compacted', filesIn: 3, rows: 6 });
  });

  // The long runs (a fault at every call, the property) are for the store under test, not for every DynamoDB.
  const longIt = long ? it : it.skip;

  longIt('ends as one clean compaction after an error, a lost answer or a crash at any single store call of it, each in turn', async () => {
    const setUp = async (name: string) => {
      const pixelId = pixel(name);
      for (const batch of BATCHES) await appendBatch(pixelId, batch);
      return pixelId;
    };
    const reference = await setUp('fault_ref');
    const expected = await answers(reference);
    const appended = await liveRows(reference, DATE);

    // The clean compaction, and how many store calls it makes.
    const clean = await setUp('fault_clean');
    const counter = hookStoreCalls(() => undefined);
    await compactPartition(EVENTS_TABLE, clean, DATE, { mode: 'whole' });
    counter.restore();
    const calls = counter.calls();
    expect(calls).toBeGreaterThan(8);
    const cleanLive = await liveByDate(clean);

    for (const variant of ['error', 'lost answer', 'crash'] as const) {
      for (let nth = 1; nth <= calls; nth++) {
        const label = `${variant} at store call ${nth} of ${calls}`;
        const pixelId = await setUp(`fault_${variant.replace(' ', '_')}_${nth}`);
        let clock = Date.now();
        const now = () => clock;
        // An error fails that call alone, unmade; a lost answer fails it once made (a retry then meets
        // what it did); a crash fails it and everything after (the process is gone).
        const hook = hookStoreCalls(
          (call, name) => {
            if ((variant === 'error' && call === nth) || (variant === 'crash' && call >= nth)) throw new InjectedFault(`${variant} at ${name}`);
          },
          (call, name) => {
            if (variant === 'lost answer' && call === nth) throw new InjectedFault(`${variant} at ${name}`);
          },
        );
        await compactPartition(EVENTS_TABLE, pixelId, DATE, { mode: 'whole', now }).catch(() => undefined);
        hook.restore();
        // Whatever it left, every reader sees the same answers, the same rows.
        expect(await answers(pixelId), label).toEqual(expected);
        expect(assertSameRows(await liveRows(pixelId, DATE), appended), label).toBeUndefined();

        // Compaction runs again (once the crashed one's lease is over), and the sweep after the grace.
        clock += LEASE_MS + 1;
        await compactPartition(EVENTS_TABLE, pixelId, DATE, { mode: 'whole', now });
        clock += GRACE_MS + 1;
        await sweepReplacedFiles({ now });
        expect(await liveByDate(pixelId), label).toEqual(cleanLive);
        expect(await answers(pixelId), label).toEqual(expected);
        expect(await storedFiles(pixelId, isRetired), label).toEqual({ files: cleanLive, hints: [] });
        expect(await bookkeeping(pixelId, DATE), label).toEqual({ lease: false, retired: 0, removing: [] });
      }
    }
  }, 900_000);

  longIt('never changes an answer, however compactions interleave with appends, crashes and sweeps (property)', async () => {
    const batch = fc.uniqueArray(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 2 });
    const op = fc.oneof(
      { weight: 3, arbitrary: fc.record({ kind: fc.constant('append' as const), batch }) },
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant('compact' as const),
          date: fc.constantFrom(DATE, NEXT_DATE),
          mode: fc.constantFrom('tiered' as const, 'whole' as const),
          // An append lands, or the process dies, at that store call of the compaction (none past its last).
          appendAt: fc.option(fc.record({ call: fc.integer({ min: 1, max: 16 }), batch }), { nil: undefined }),
          crashAt: fc.option(fc.integer({ min: 2, max: 20 }), { nil: undefined, freq: 2 }),
        }),
      },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('wait' as const), ms: fc.constantFrom(LEASE_MS + 1, GRACE_MS + 1) }) },
    );
    let run = 0;
    // What the runs went through, so the property is known to cover the paths that matter.
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 2, maxLength: 10 }), async (ops) => {
        const id = run++;
        const pixelId = pixel(`prop${id}`);
        // The same appends, never compacted, each a file of its own: what every answer must stay,
        // and as many copies of a row as were appended (a batch appended again after compaction
        // merged its file, as a retried projection does, is live again beside the merge).
        const shadow = pixel(`prop${id}_shadow`);
        let clock = Date.now();
        const now = () => clock;
        const append = async (entries: number[]) => {
          try {
            await appendBatch(pixelId, entries);
          } catch (error) {
            // Refused all along by a removal whose holder crashed holding the lease: the
            // projection is retried once a compaction has taken the partition over.
            if (!String(error).includes('still removing')) throw error;
            seen.add('append waited out a dead removal');
            clock += LEASE_MS + 1;
            for (const date of [DATE, NEXT_DATE]) await compactPartition(EVENTS_TABLE, pixelId, date, { mode: 'tiered', threshold: 1_000, now });
            await appendBatch(pixelId, entries);
          }
          await appendBatch(shadow, entries);
        };
        // The same answers, and the same facts in the live files: a batch appended again after
        // compaction merged its file is live again beside the merge (its rows twice, one fact).
        const check = async (step: string) => {
          expect(await answers(pixelId), step).toEqual(await answers(shadow));
          for (const date of [DATE, NEXT_DATE]) expect(sameDistinctRows(await liveRows(pixelId, date), await liveRows(shadow, date)), `${step}, ${date}`).toBeUndefined();
        };
        await append([1, 2]);
        for (const [index, step] of ops.entries()) {
          if (step.kind === 'append') await append(step.batch);
          else if (step.kind === 'wait') {
            clock += step.ms;
            await sweepReplacedFiles({ now });
          } else {
            // The append runs beside the compaction from that call on, as another process's
            // would: given a head start, never awaited by it (it may wait for the compaction).
            let appending: Promise<void> | undefined;
            const hook = hookStoreCalls(async (call, name) => {
              if (step.crashAt !== undefined && call >= step.crashAt) throw new InjectedFault(`crash at ${name}`);
              if (step.appendAt?.call === call) {
                appending = append(step.appendAt.batch);
                await Promise.race([appending, new Promise((resolve) => setTimeout(resolve, 300))]);
              }
            });
            await compactPartition(EVENTS_TABLE, pixelId, step.date, { mode: step.mode, threshold: 3, now }).then(
              (report) => {
                seen.add(report.outcome);
                if (report.swaps > 1) seen.add('swapped again');
              },
              (error: unknown) => {
                if (!(error instanceof InjectedFault)) throw error;
                seen.add('crashed');
              },
            );
            hook.restore();
            await appending;
          }
          await check(`after step ${index}: ${JSON.stringify(step)}`);
        }
        // Everything settles: compacted whole once more, swept after the grace, nothing left but the live files.
        clock += LEASE_MS + 1;
        for (const date of [DATE, NEXT_DATE]) await compactPartition(EVENTS_TABLE, pixelId, date, { mode: 'whole', now });
        clock += GRACE_MS + 1;
        await sweepReplacedFiles({ now });
        await check('settled');
        const live = await liveByDate(pixelId);
        for (const files of Object.values(live)) expect(files).toHaveLength(1);
        expect(await storedFiles(pixelId, isRetired)).toEqual({ files: live, hints: [] });
        // And the one file of a date holds each distinct row once.
        for (const date of Object.keys(live)) {
          const rows = await rowsOf(pixelId, date, live[date]!);
          expect([...rows.values()].every((count) => count === 1)).toBe(true);
        }
      }),
      {
        numRuns: propertyRuns,
        endOnFailure: true,
        // One run known to go through every path: an append before the swap, a crash holding the
        // lease, a compaction finding it held, the lease and the grace running out.
        examples: [
          [
            [
              { kind: 'append', batch: [3] },
              { kind: 'append', batch: [4] },
              { kind: 'compact', date: DATE, mode: 'whole', appendAt: { call: 4, batch: [5] }, crashAt: undefined },
              { kind: 'compact', date: DATE, mode: 'whole', appendAt: undefined, crashAt: 5 },
              { kind: 'compact', date: DATE, mode: 'whole', appendAt: undefined, crashAt: undefined },
              { kind: 'wait', ms: LEASE_MS + 1 },
              { kind: 'compact', date: DATE, mode: 'whole', appendAt: undefined, crashAt: undefined },
              { kind: 'wait', ms: GRACE_MS + 1 },
            ],
          ],
        ],
      },
    );
    expect([...seen].sort(), 'what the runs went through').toEqual(expect.arrayContaining(['busy', 'compacted', 'crashed', 'swapped again']));
  }, 900_000);
}
