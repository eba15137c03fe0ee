import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlString, withDuckDB } from './duckdb';
import { addFiles, fileKeyOf } from './partitions';
import { analyticsStore } from './store-config';
import { columnsDdl, type TableDefinition } from './tables';

/** Rows held in memory before they are staged on disk: the import's memory does not grow with its file. */
const CHUNK_ROWS = 200_000;
/** Dates merged at once when an import finishes (DuckDB work), and stored at once (uploads and live-set updates). */
const DATE_CONCURRENCY = 2;
const STORE_CONCURRENCY = 8;

/** The one file DuckDB wrote into a partition directory. */
async function onlyFileIn(directory: string): Promise<string> {
  const files = (await readdir(directory)).filter((name) => name.endsWith('.parquet'));
  if (files.length !== 1) throw new Error(`Expected one staged file in ${directory}, found ${files.length}`);
  return join(directory, files[0] as string);
}

/**
 * One import's rows of one table, written as one file per UTC date named by the import id, each
 * holding a key at most once. Rows are staged in memory up to a chunk, then as local Parquet
 * files per date (so a large file is imported in constant memory); `finish` merges each date's
 * staged rows, keeping for each key the row added last (the table's read rule within one import),
 * and only then stores each date's file and adds it to the date's live set (partitions.ts). A
 * crash before that leaves nothing live; running the import again writes under a new import id,
 * which the read rule lets supersede whatever an earlier run stored.
 */
export class TableImport {
  private rows: unknown[][] = [];
  private readonly dates = new Set<string>();
  private chunks = 0;
  private seq = 0;
  private readonly dir = join(tmpdir(), 'analytics-imports', randomUUID());

  constructor(
    private readonly table: TableDefinition,
    private readonly pixelId: string,
    private readonly importId: string,
    /** The columns that identify a row (the read rule's key), and the order rows are written in. */
    private readonly layout: { key: readonly string[]; sortBy: readonly string[] },
    private readonly chunkRows = CHUNK_ROWS,
  ) {}

  /** Adds a row (in the table's column order) under its UTC date; a later row of the same key replaces it. */
  async add(date: string, row: readonly unknown[]): Promise<void> {
    this.rows.push([...row, this.seq++, date]);
    this.dates.add(date);
    if (this.rows.length >= this.chunkRows) await this.stage();
  }

  get rowCount(): number {
    return this.seq;
  }

  /** Writes the buffered rows as one staged Parquet file per date (or, with `final`, already merged under the rule). */
  private async stage(final = false): Promise<string | undefined> {
    if (this.rows.length === 0) return undefined;
    const rows = this.rows;
    this.rows = [];
    const { DuckDBDataChunkWriter, JSToDuckDBValueConverter } = await import('@duckdb/node-api');
    await mkdir(this.dir, { recursive: true });
    const staging = `staging_${randomUUID().replaceAll('-', '')}`;
    const target = join(this.dir, final ? 'merged' : `chunk-${String(this.chunks++).padStart(6, '0')}`);
    await withDuckDB(async (connection) => {
      await connection.run(`CREATE TABLE ${staging} (${columnsDdl(this.table)}, _seq BIGINT, _date VARCHAR)`);
      try {
        const appender = await connection.createAppender(staging);
        const writer = DuckDBDataChunkWriter.forAppender(appender, { converter: JSToDuckDBValueConverter });
        for (const row of rows) writer.appendRow(row as Parameters<typeof writer.appendRow>[0]);
        writer.flush();
        appender.closeSync();
        const source = final ? `(${this.merged(staging)})` : staging;
        await connection.run(`COPY ${source} TO ${sqlString(target)} (FORMAT parquet, PARTITION_BY (_date), COMPRESSION zstd)`);
      } finally {
        await connection.run(`DROP TABLE IF EXISTS ${staging}`);
      }
    });
    return target;
  }

  /** The rows of `source` under the rule within the import (the row added last of each key), in the file's order, with their date. */
  private merged(source: string, withDate = true): string {
    const quote = (names: readonly string[]) => names.map((name) => `"${name}"`).join(', ');
    const columns = this.table.columns.map((column) => `"${column.name}"`).join(', ');
    return `SELECT ${columns}${withDate ? ', _date' : ''} FROM ${source}
            QUALIFY row_number() OVER (PARTITION BY ${withDate ? '_date, ' : ''}${quote(this.layout.key)} ORDER BY _seq DESC) = 1
            ORDER BY ${withDate ? '_date, ' : ''}${quote(this.layout.sortBy)}`;
  }

  /** Merges, stores and makes live every date's file; the dates written, in order. */
  async finish(): Promise<string[]> {
    try {
      const dates = [...this.dates].sort();
      const fileOf = new Map<string, string>();
      if (this.chunks === 0) {
        // Everything is still in memory (a small import): merged and split by date in one statement.
        const merged = await this.stage(true);
        for (const date of dates) fileOf.set(date, await onlyFileIn(join(merged as string, `_date=${date}`)));
      } else {
        await this.stage();
        for (let i = 0; i < dates.length; i += DATE_CONCURRENCY) {
          await Promise.all(
            dates.slice(i, i + DATE_CONCURRENCY).map(async (date) => {
              const path = join(this.dir, `${date}.parquet`);
              const staged = sqlString(join(this.dir, 'chunk-*', `_date=${date}`, '*.parquet'));
              await withDuckDB((connection) => connection.run(`COPY (${this.merged(`read_parquet(${staged}, hive_partitioning = false)`, false)}) TO ${sqlString(path)} (FORMAT parquet, COMPRESSION zstd)`));
              fileOf.set(date, path);
            }),
          );
        }
      }
      const store = analyticsStore();
      for (let i = 0; i < dates.length; i += STORE_CONCURRENCY) {
        await Promise.all(
          dates.slice(i, i + STORE_CONCURRENCY).map(async (date) => {
            await store.putFile(fileKeyOf(this.table.name, this.pixelId, date, this.importId), fileOf.get(date) as string);
            await addFiles(this.pixelId, this.table.name, date, [this.importId]);
          }),
        );
      }
      return dates;
    } finally {
      await this.discard();
    }
  }

  /** Drops what was staged (nothing was made live). */
  async discard(): Promise<void> {
    this.rows = [];
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** UTC date (`YYYY-MM-DD`) of an instant in epoch milliseconds; dates repeat, so the last one is kept. */
let lastDay = Number.NaN;
let lastDate = '';
export function utcDateOf(ms: number): string {
  const day = Math.floor(ms / 86_400_000);
  if (day !== lastDay) {
    lastDay = day;
    lastDate = new Date(day * 86_400_000).toISOString().slice(0, 10);
  }
  return lastDate;
}
