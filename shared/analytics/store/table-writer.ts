import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mapWithConcurrency } from '../../map-with-concurrency';
import { withDuckDB, sqlString } from './duckdb';
import { analyticsStore } from './store-config';
import { addFiles, fileKeyOf } from './partitions';
import { columnsDdl, type TableDefinition } from './tables';

/** Where files are written before they are stored: in Lambda the only writable place is /tmp. */
const WORK_DIR = join(tmpdir(), 'analytics-writes');

/**
 * Writes rows as one Parquet file (zstd, sorted by the partition column so each row group's
 * min/max lets a reader skip it) and returns the local file's path. The rows are in the table's
 * column order, each value in the JS form DuckDB's converter takes (`Date` for a TIMESTAMP, an
 * array for a list, `null` for none).
 */
export async function writeParquetFile(table: TableDefinition, rows: ReadonlyArray<readonly unknown[]>): Promise<string> {
  const { DuckDBDataChunkWriter, JSToDuckDBValueConverter } = await import('@duckdb/node-api');
  await mkdir(WORK_DIR, { recursive: true });
  const path = join(WORK_DIR, `${randomUUID()}.parquet`);
  const staging = `staging_${randomUUID().replaceAll('-', '')}`;
  await withDuckDB(async (connection) => {
    await connection.run(`CREATE TABLE ${staging} (${columnsDdl(table)})`);
    try {
      const appender = await connection.createAppender(staging);
      const writer = DuckDBDataChunkWriter.forAppender(appender, { converter: JSToDuckDBValueConverter });
      for (const row of rows) writer.appendRow(row as Parameters<typeof writer.appendRow>[0]);
      writer.flush();
      appender.closeSync();
      await connection.run(`COPY (SELECT * FROM ${staging} ORDER BY "${table.partitionedBy}") TO ${sqlString(path)} (FORMAT parquet, COMPRESSION zstd)`);
    } finally {
      await connection.run(`DROP TABLE IF EXISTS ${staging}`);
    }
  });
  return path;
}

/**
 * Appends rows to a pixel's table, one file per UTC date under `name`: each file is stored, then
 * added to its date's live set (partitions.ts). Running it again with the same rows and name
 * stores the same files again and adds nothing new, so a retried projection is harmless.
 */
export async function appendRows(table: TableDefinition, pixelId: string, name: string, rowsByDate: ReadonlyMap<string, ReadonlyArray<readonly unknown[]>>): Promise<void> {
  const store = analyticsStore();
  // Two dates at a time: handing rows to the engine runs on the event loop, and a seed of many
  // days at once would hold it long enough for the process's other calls to time out.
  await mapWithConcurrency([...rowsByDate], WRITE_CONCURRENCY, async ([date, rows]) => {
    if (rows.length === 0) return;
    const path = await writeParquetFile(table, rows);
    try {
      await store.putFile(fileKeyOf(table.name, pixelId, date, name), path);
    } finally {
      await rm(path, { force: true });
    }
    await addFiles(pixelId, table.name, date, [name]);
  });
}

const WRITE_CONCURRENCY = 2;
