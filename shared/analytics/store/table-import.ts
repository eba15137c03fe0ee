import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sqlString, withDuckDB } from './duckdb';
import { addFiles, fileKeyOf } from './partitions';
import { analyticsStore } from './store-config';
import { columnsDdl, type TableDefinition } from './tables';

/** Rows held in memory before they are staged on disk: the import's memory does not grow with its file. */
const CHUNK_ROWS = 200_000;
/** Dates merged and stored at once when an import finishes. */
const DATE_CONCURRENCY = 2;

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

  /** Writes the buffered rows as one staged Parquet file per date. */
  private async stage(): Promise<void> {
    if (this.rows.length === 0) return;
    const rows = this.rows;
    this.rows = [];
    const { DuckDBDataChunkWriter, JSToDuckDBValueConverter } = await import('@duckdb/node-api');
    await mkdir(this.dir, { recursive: true });
    const staging = `staging_${randomUUID().replaceAll('-', '')}`;
    const target = join(this.dir, `chunk-${String(this.chunks++).padStart(6, '0')}`);
    await withDuckDB(async (connection) => {
      await connection.run(`CREATE TABLE ${staging} (${columnsDdl(this.table)}, _seq BIGINT, _date VARCHAR)`);
      try {
        const appender = await connection.createAppender(staging);
        const writer = DuckDBDataChunkWriter.forAppender(appender, { converter: JSToDuckDBValueConverter });
        for (const row of rows) writer.appendRow(row as Parameters<typeof writer.appendRow>[0]);
        writer.flush();
        appender.closeSync();
        await connection.run(`COPY ${staging} TO ${sqlString(target)} (FORMAT parquet, PARTITION_BY (_date), COMPRESSION zstd)`);
      } finally {
        await connection.run(`DROP TABLE IF EXISTS ${staging}`);
      }
    });
  }

  /** Merges, stores and makes live every date's file; the dates written, in order. */
  async finish(): Promise<string[]> {
    try {
      await this.stage();
      const dates = [...this.dates].sort();
      const store = analyticsStore();
      const columns = this.table.columns.map((column) => `"${column.name}"`).join(', ');
      const quote = (names: readonly string[]) => names.map((name) => `"${name}"`).join(', ');
      for (let i = 0; i < dates.length; i += DATE_CONCURRENCY) {
        await Promise.all(
          dates.slice(i, i + DATE_CONCURRENCY).map(async (date) => {
            const path = join(this.dir, `${date}.parquet`);
            const staged = join(this.dir, 'chunk-*', `_date=${date}`, '*.parquet');
            await withDuckDB((connection) =>
              connection.run(
                `COPY (SELECT ${columns} FROM read_parquet(${sqlString(staged)}, hive_partitioning = false)
                       QUALIFY row_number() OVER (PARTITION BY ${quote(this.layout.key)} ORDER BY _seq DESC) = 1
                       ORDER BY ${quote(this.layout.sortBy)})
                 TO ${sqlString(path)} (FORMAT parquet, COMPRESSION zstd)`,
              ),
            );
            await store.putFile(fileKeyOf(this.table.name, this.pixelId, date, this.importId), path);
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
