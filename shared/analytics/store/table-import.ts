import { randomUUID } from 'node:crypto';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlString, withDuckDB } from './duckdb';
import { addFiles, fileKeyOf } from './partitions';
import { analyticsStore } from './store-config';
import type { Column, TableDefinition } from './tables';

/** Rows held in memory before they are staged on disk: the import's memory does not grow with its file. */
const CHUNK_ROWS = 200_000;
/** Dates merged at once when an import finishes (DuckDB work), and stored at once (uploads and live-set updates). */
const DATE_CONCURRENCY = 2;
const STORE_CONCURRENCY = 8;

/** The columns every import fills itself: which import wrote the row, and when it started. */
const IMPORT_COLUMNS = new Set(['import_id', 'imported_at']);

/**
 * One import's rows of one table, written as one file per UTC date (of the table's partition
 * column) named by the import id, each holding a key at most once. Rows are staged in memory up
 * to a chunk, then as local Parquet files per date (so a large file is imported in constant
 * memory); `finish` merges each date's staged rows, keeping for each key the row added last (the
 * table's read rule within one import), and only then stores each date's file and adds it to the
 * date's live set (partitions.ts). A crash before that leaves nothing live; running the import
 * again writes under a new import id, which the read rule lets supersede whatever an earlier run
 * stored.
 *
 * A row is given in the table's column order without `import_id` and `imported_at`, each value
 * in the plain form it is staged in: a TIMESTAMP as epoch milliseconds, a DATE as `YYYY-MM-DD`, a
 * BIGINT as a bigint, and numbers and strings as they are (null for none). Converting to DuckDB's
 * types once in SQL, rather than value by value in JS, is most of an import's speed.
 */
export class TableImport {
  private rows: unknown[][] = [];
  private chunks = 0;
  private seq = 0;
  private readonly dir = join(tmpdir(), 'analytics-imports', randomUUID());
  private readonly inputColumns: readonly Column[];

  constructor(
    private readonly table: TableDefinition,
    private readonly pixelId: string,
    private readonly importId: string,
    private readonly importedAt: Date,
    /** The columns that identify a row (the read rule's key), and the order rows are written in. */
    private readonly layout: { key: readonly string[]; sortBy: readonly string[] },
    private readonly chunkRows = CHUNK_ROWS,
  ) {
    this.inputColumns = table.columns.filter((column) => !IMPORT_COLUMNS.has(column.name));
  }

  /** Adds a row; a later row of the same key replaces it. */
  async add(row: readonly unknown[]): Promise<void> {
    this.rows.push([...row, this.seq++]);
    if (this.rows.length >= this.chunkRows) await this.stage();
  }

  get rowCount(): number {
    return this.seq;
  }

  /** A column's value in the table's type, from its staged form. */
  private valueOf(column: Column): string {
    if (column.name === 'import_id') return sqlString(this.importId);
    if (column.name === 'imported_at') return `make_timestamp(${this.importedAt.getTime() * 1000})`;
    if (column.type === 'TIMESTAMP') return `make_timestamp(CAST("${column.name}" * 1000 AS BIGINT))`;
    if (column.type === 'DATE') return `CAST("${column.name}" AS DATE)`;
    return `"${column.name}"`;
  }

  /** The UTC date of a staged row: of its partition column. */
  private dateOf(): string {
    const column = this.table.columns.find((candidate) => candidate.name === this.table.partitionedBy) as Column;
    return `strftime(${this.valueOf(column)}, '%Y-%m-%d')`;
  }

  /** Writes the buffered rows as one staged Parquet file per date (or, with `final`, already merged under the rule). */
  private async stage(final = false): Promise<string | undefined> {
    if (this.rows.length === 0) return undefined;
    const rows = this.rows;
    this.rows = [];
    const { DuckDBDataChunk } = await import('@duckdb/node-api');
    await mkdir(this.dir, { recursive: true });
    const staging = `staging_${randomUUID().replaceAll('-', '')}`;
    const target = join(this.dir, final ? 'merged' : `chunk-${String(this.chunks++).padStart(6, '0')}`);
    const stagedType = (column: Column) => (column.type === 'TIMESTAMP' ? 'DOUBLE' : column.type === 'DATE' ? 'VARCHAR' : column.type);
    await withDuckDB(async (connection) => {
      await connection.run(`CREATE TEMP TABLE ${staging} (${this.inputColumns.map((column) => `"${column.name}" ${stagedType(column)}`).join(', ')}, _seq DOUBLE)`);
      try {
        const appender = await connection.createAppender(staging);
        const types = Array.from({ length: appender.columnCount }, (_, index) => appender.columnType(index));
        for (let start = 0; start < rows.length; start += 2048) {
          const chunk = DuckDBDataChunk.create(types);
          chunk.setRows(rows.slice(start, start + 2048) as Parameters<typeof chunk.setRows>[0]);
          appender.appendDataChunk(chunk);
        }
        appender.closeSync();
        const dated = `SELECT *, ${this.dateOf()} AS _date FROM ${staging}`;
        await connection.run(`COPY (${final ? this.merged(`(${dated})`) : dated}) TO ${sqlString(target)} (FORMAT parquet, PARTITION_BY (_date), COMPRESSION zstd)`);
      } finally {
        await connection.run(`DROP TABLE IF EXISTS ${staging}`);
      }
    });
    return target;
  }

  /** The rows of `source` under the rule within the import (the row added last of each key), in the table's columns and order. */
  private merged(source: string, withDate = true): string {
    const quote = (names: readonly string[]) => names.map((name) => `"${name}"`).join(', ');
    const columns = this.table.columns.map((column) => `${this.valueOf(column)} AS "${column.name}"`).join(', ');
    return `SELECT ${columns}${withDate ? ', _date' : ''} FROM ${source}
            QUALIFY row_number() OVER (PARTITION BY ${withDate ? '_date, ' : ''}${quote(this.layout.key)} ORDER BY _seq DESC) = 1
            ORDER BY ${withDate ? '_date, ' : ''}${quote(this.layout.sortBy)}`;
  }

  /** Merges, stores and makes live every date's file; the dates written, in order. */
  async finish(): Promise<string[]> {
    try {
      const fileOf = new Map<string, string>();
      if (this.chunks === 0) {
        // Everything is still in memory (a small import): merged and split by date in one statement.
        const merged = await this.stage(true);
        if (merged) for (const date of await datesIn([merged])) fileOf.set(date, await onlyFileIn(join(merged, `_date=${date}`)));
      } else {
        await this.stage();
        const chunks = Array.from({ length: this.chunks }, (_, index) => join(this.dir, `chunk-${String(index).padStart(6, '0')}`));
        const dates = await datesIn(chunks);
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
      const dates = [...fileOf.keys()].sort();
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

/** The dates DuckDB partitioned staged rows into (`_date=<date>` directories), in order. */
async function datesIn(directories: readonly string[]): Promise<string[]> {
  const dates = new Set<string>();
  for (const directory of directories) {
    for (const name of await readdir(directory)) if (name.startsWith('_date=')) dates.add(name.slice('_date='.length));
  }
  return [...dates].sort();
}

/** The one file DuckDB wrote into a partition directory. */
async function onlyFileIn(directory: string): Promise<string> {
  const files = (await readdir(directory)).filter((name) => name.endsWith('.parquet'));
  if (files.length !== 1) throw new Error(`Expected one staged file in ${directory}, found ${files.length}`);
  return join(directory, files[0] as string);
}
