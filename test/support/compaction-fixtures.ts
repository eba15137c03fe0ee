import { AsyncLocalStorage } from 'node:async_hooks';
import { vi } from 'vitest';
import { readEventCounts, readEvents } from '../../shared/analytics/store/event-facts';
import { eventDate, eventRow } from '../../shared/analytics/store/event-rows';
import { eventsTableProjector } from '../../shared/analytics/store/events-table-projector';
import { appendRows } from '../../shared/analytics/store/table-writer';
import { EVENTS_TABLE } from '../../shared/analytics/store/tables';
import { withDuckDB, sqlString } from '../../shared/analytics/store/duckdb';
import { readLedger } from '../../shared/analytics/store/compaction-ledger';
import { HINT_PREFIX } from '../../shared/analytics/store/compaction';
import { fileKeyOf, liveFiles } from '../../shared/analytics/store/partitions';
import { analyticsStore } from '../../shared/analytics/store/store-config';
import type { ProjectedEntry } from '../../shared/pipeline/projector';
import { documentClient } from '../../shared/store/dynamo-client';
import type { StoredEvent } from '../../shared/tracking/stored-event';

/**
 * What the compaction tests build and look at: a pixel's events table written by the events-table
 * projector in batches (the consumer's files), and what a user sees of it: the query's answers,
 * the rows its live files hold, and what the store keeps besides.
 */
export const DAY = 86_400_000;
export const START = Date.parse('2026-03-01T00:00:00Z');
export const DATE = '2026-03-01';
export const NEXT_DATE = '2026-03-02';

export const entryIdOf = (n: number) => `01KC${String(n).padStart(22, '0')}`;

/**
 * Entry `n`'s deliveries: eventIds shared with other entries (repeats, some a day apart), one of
 * its own, one on the next day for every third entry. Always the same for the same `n`, as a log
 * entry's events are.
 */
export function entryOf(n: number): ProjectedEntry {
  const at = (minute: number) => new Date(START + minute * 60_000).toISOString();
  const event = (eventId: string, minute: number, extra: Partial<StoredEvent> = {}): StoredEvent => ({
    eventId,
    eventIdSource: 'client',
    name: n % 4 === 0 ? 'purchase' : 'page_view',
    standard: true,
    timestamp: at(minute),
    receivedAt: at(minute + 1),
    ...extra,
  });
  const events = [
    event(`shared-${n % 5}`, (n * 37) % 1_400, { utm: { utm_source: n % 2 ? 'google' : 'meta' }, user: { anonymousId: `anon${n % 3}` } }),
    event(`own-${n}`, (n * 53) % 1_400, { user: { userIds: [`u${n % 4}`] }, click: { fbp: `fb.${n % 2}` } }),
    ...(n % 3 === 0 ? [event(`late-${n % 2}`, 1_440 + n, { data: { n } })] : []),
  ];
  return { entryId: entryIdOf(n), acceptedAt: new Date(START).toISOString(), events, superseded: [] };
}

/** Writes one batch of entries as the consumer does: one file per UTC date, named by its entries. */
export async function appendBatch(pixelId: string, entries: readonly number[]): Promise<void> {
  await eventsTableProjector.project({ pixelId, entries: entries.map(entryOf), orders: [] });
}

/**
 * Writes a batch as a file of a name no other append has: a pixel written only this way holds a
 * row as many times as it was appended, retries included, which bounds what any live set may hold.
 */
let unique = 0;
export async function appendBatchAsNewFile(pixelId: string, entries: readonly number[]): Promise<void> {
  const rowsByDate = new Map<string, unknown[][]>();
  for (const entry of entries.map(entryOf)) {
    for (const event of entry.events) {
      const date = eventDate(event);
      if (!rowsByDate.has(date)) rowsByDate.set(date, []);
      rowsByDate.get(date)!.push(eventRow(entry.entryId, event));
    }
  }
  await appendRows(EVENTS_TABLE, pixelId, `append-${++unique}`, rowsByDate);
}

/** Every answer the query reads from events, over a range holding both dates and their dedup windows. */
export async function answers(pixelId: string): Promise<unknown> {
  const range = { start: START - DAY, end: START + 3 * DAY };
  const sorted = (rows: unknown[]) => rows.map((row) => JSON.stringify(row)).sort();
  return {
    events: sorted(await readEvents(pixelId, range)),
    counts: sorted(await readEventCounts(pixelId, range, true)),
    firstDay: sorted(await readEvents(pixelId, { start: START, end: START + DAY })),
  };
}

/** The rows of the given files of a date, each as text, with how many copies of it they hold. */
export async function rowsOf(pixelId: string, date: string, names: readonly string[]): Promise<Map<string, number>> {
  const store = analyticsStore();
  const paths = await Promise.all(names.map((name) => store.localPath(fileKeyOf('events', pixelId, date, name))));
  const counts = new Map<string, number>();
  if (paths.length === 0) return counts;
  const rows = await withDuckDB(async (connection) =>
    (await connection.runAndReadAll(`SELECT * FROM read_parquet([${paths.map(sqlString).join(', ')}], union_by_name = true, hive_partitioning = false)`)).getRowObjectsJS(),
  );
  for (const row of rows) {
    const text = JSON.stringify(row, (_, value) => (typeof value === 'bigint' ? String(value) : value));
    counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  return counts;
}

/** The rows a date's live files hold. */
export async function liveRows(pixelId: string, date: string): Promise<Map<string, number>> {
  return rowsOf(pixelId, date, (await liveFiles(pixelId, 'events', date, date))[0]?.files ?? []);
}

/**
 * A compacted date holds no row the appends did not (none invented), every row they did (none
 * lost), and never more copies of one than the appends wrote (no file read twice: a replaced file
 * left live beside its replacement would hold its rows a second time).
 */
export function assertSameRows(compacted: Map<string, number>, appended: Map<string, number>): string | undefined {
  for (const [row, count] of compacted) {
    const written = appended.get(row);
    if (written === undefined) return `a row no append wrote: ${row}`;
    if (count > written) return `${count} copies of a row written ${written} times: ${row}`;
  }
  for (const row of appended.keys()) if (!compacted.has(row)) return `a row lost: ${row}`;
  return undefined;
}

/** Whether two sets of rows hold the same distinct rows (one fact stored twice is one fact). */
export function sameDistinctRows(actual: Map<string, number>, expected: Map<string, number>): string | undefined {
  for (const row of actual.keys()) if (!expected.has(row)) return `a row no append wrote: ${row}`;
  for (const row of expected.keys()) if (!actual.has(row)) return `a row lost: ${row}`;
  return undefined;
}

/**
 * What the store keeps for a pixel's events besides nothing: the objects not handed to removal
 * (`isRetired` says which a bucket tagged), by date, and the sweep's hints.
 */
export async function storedFiles(pixelId: string, isRetired: (key: string) => Promise<boolean>): Promise<{ files: Record<string, string[]>; hints: string[] }> {
  const store = analyticsStore();
  const files: Record<string, string[]> = {};
  for (const { key } of await store.list(`events/pixel=${pixelId}/`)) {
    if (await isRetired(key)) continue;
    const [, , date, file] = /^events\/pixel=([^/]+)\/date=([^/]+)\/(.+)\.parquet$/.exec(key)!;
    (files[date!] ??= []).push(file!);
  }
  for (const names of Object.values(files)) names.sort();
  const hints = (await store.list(`${HINT_PREFIX}events/${pixelId}/`)).map((object) => object.key);
  return { files, hints };
}

/** The live files of every date of a pixel's events, by date. */
export async function liveByDate(pixelId: string): Promise<Record<string, string[]>> {
  return Object.fromEntries((await liveFiles(pixelId, 'events', '2000-01-01', '2999-12-31')).map((partition) => [partition.date, partition.files]));
}

/**
 * Compaction's bookkeeping left on a date's item: whether a lease is held, how many files wait
 * for their removal (entries of live names, which the next settle drops, aside), and what is
 * being removed: none of it once everything is settled.
 */
export async function bookkeeping(pixelId: string, date: string): Promise<unknown> {
  const ledger = await readLedger(pixelId, 'events', date);
  const live = new Set(ledger?.files ?? []);
  const waiting = new Set((ledger?.retired ?? []).map((entry) => entry.name).filter((name) => !live.has(name)));
  return { lease: ledger?.lease !== undefined, retired: waiting.size, removing: ledger?.removing ?? [] };
}

const STORE_METHODS = ['put', 'putFile', 'get', 'size', 'withLocalFiles', 'retire', 'keep', 'delete', 'list', 'localPath'] as const;

/**
 * Calls `hook` before every call this process makes to DynamoDB (point calls) and to the object
 * store, numbered from 1, with its name, and `after` once the call has returned (an error thrown
 * there is a call that happened and whose answer was lost). Calls made from inside the hooks (an
 * append run at that moment) are neither numbered nor hooked. `restore` puts everything back.
 */
export function hookStoreCalls(
  hook: (call: number, name: string) => void | Promise<void>,
  after: (call: number, name: string) => void | Promise<void> = () => undefined,
): { restore(): void; calls(): number } {
  let calls = 0;
  // Marks the calls made from inside the hooks (calls side by side are each numbered).
  const inHook = new AsyncLocalStorage<true>();
  const around = async <T>(name: string, call: () => Promise<T>): Promise<T> => {
    if (inHook.getStore()) return call();
    const number = ++calls;
    await inHook.run(true, () => hook(number, name));
    const result = await call();
    await inHook.run(true, () => after(number, name));
    return result;
  };
  const store = analyticsStore() as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const spies: Array<{ mockRestore(): void }> = STORE_METHODS.map((method) => {
    const original = store[method]!.bind(store);
    return vi.spyOn(store, method).mockImplementation((...args: unknown[]) => around(`store.${method}`, () => original(...args)));
  });
  const send = documentClient.send.bind(documentClient);
  spies.push(
    vi.spyOn(documentClient, 'send').mockImplementation(((command: { constructor: { name: string } }) => around(`dynamodb.${command.constructor.name}`, () => send(command as never))) as never),
  );
  return {
    restore: () => {
      for (const spy of spies) spy.mockRestore();
    },
    calls: () => calls,
  };
}

export class InjectedFault extends Error {
  override name = 'InjectedFault';
}
