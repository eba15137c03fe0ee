import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mapWithConcurrency } from '../../map-with-concurrency';
import { withDuckDB, sqlString } from './duckdb';
import { analyticsStore } from './store-config';
import { noteAppend } from './compaction-runner';
import { clearDeadRemoval, readLedger } from './compaction-ledger';
import { addFiles, fileKeyOf, type PartitionFiles } from './partitions';
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
 * stores the same files again and adds nothing new, so a retried projection is harmless. A date
 * the append leaves due for compaction is noted for the process to compact (compaction-runner.ts).
 */
export async function appendRows(table: TableDefinition, pixelId: string, name: string, rowsByDate: ReadonlyMap<string, ReadonlyArray<readonly unknown[]>>): Promise<void> {
  // Two dates at a time: handing rows to the engine runs on the event loop, and a seed of many
  // days at once would hold it long enough for the process's other calls to time out.
  await mapWithConcurrency([...rowsByDate], WRITE_CONCURRENCY, async ([date, rows]) => {
    if (rows.length > 0) noteAppend(table, pixelId, await appendFile(table, pixelId, date, name, rows));
  });
}

/**
 * Writes rows as a file of a pixel's table partition and stores it, without making it live: the
 * caller adds it to the partition's live set (partitions.ts), unconditionally or on a version.
 */
export async function storeFile(table: TableDefinition, pixelId: string, partition: string, name: string, rows: ReadonlyArray<readonly unknown[]>): Promise<void> {
  const path = await writeParquetFile(table, rows);
  try {
    await analyticsStore().putFile(fileKeyOf(table.name, pixelId, partition, name), path);
  } finally {
    await rm(path, { force: true });
  }
}

const WRITE_CONCURRENCY = 2;

/** How often an append that meets a compaction removing a file of its name tries (about 6 s in all) before it fails, for the projection to be retried. */
const MAX_ADD_ATTEMPTS = 7;

async function appendFile(table: TableDefinition, pixelId: string, date: string, name: string, rows: ReadonlyArray<readonly unknown[]>): Promise<PartitionFiles> {
  const key = fileKeyOf(table.name, pixelId, date, name);
  for (let attempt = 1; ; attempt++) {
    await storeFile(table, pixelId, date, name, rows);
    const added = await addFiles(pixelId, table.name, date, [name]);
    if (added !== 'removing') return added;
    // A compaction is removing a file of this name (it merged this very append before): the
    // copy just stored may be what it removes, so it is stored again once the removal is over.
    if (attempt >= MAX_ADD_ATTEMPTS) throw new Error(`The analytics store is still removing '${key}'; the append is to be retried`);
    await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
    const ledger = await readLedger(pixelId, table.name, date);
    // A holder that failed or died mid-removal removes nothing more: its mark is cleared here.
    if (ledger?.removing.includes(name) && !(ledger.lease && ledger.lease.until >= Date.now())) await clearDeadRemoval(pixelId, table.name, date, name, Date.now());
  }
}
