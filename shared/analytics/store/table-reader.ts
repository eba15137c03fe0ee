import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from './duckdb';
import { liveFiles, fileKeyOf, type PartitionFiles } from './partitions';
import { analyticsStore } from './store-config';
import type { TableDefinition } from './tables';

/**
 * Makes a pixel's table readable on a connection as a temporary view named `view`: the live files
 * of every UTC date from `from` to `to` (both included), read as one table. A range without files
 * is an empty view with the table's columns, so every query over it is valid SQL.
 */
export async function registerTableView(
  connection: DuckDBConnection,
  table: TableDefinition,
  pixelId: string,
  range: { from: string; to: string },
  view: string,
): Promise<number> {
  return registerFilesView(connection, table, pixelId, await liveFiles(pixelId, table.name, range.from, range.to), view);
}

/** `registerTableView` over partitions' files already listed (a writer reads exactly the files of the version it read). */
export async function registerFilesView(
  connection: DuckDBConnection,
  table: TableDefinition,
  pixelId: string,
  partitions: readonly PartitionFiles[],
  view: string,
): Promise<number> {
  const store = analyticsStore();
  const paths = await Promise.all(partitions.flatMap(({ date, files }) => files.map((name) => store.localPath(fileKeyOf(table.name, pixelId, date, name)))));
  const columns = table.columns.map((column) => `"${column.name}"`).join(', ');
  const source =
    paths.length === 0
      ? `SELECT ${table.columns.map((column) => `NULL::${column.type} AS "${column.name}"`).join(', ')} WHERE false`
      : `SELECT ${columns} FROM read_parquet([${paths.map(sqlString).join(', ')}], union_by_name = true)`;
  await connection.run(`CREATE OR REPLACE TEMP VIEW ${view} AS ${source}`);
  return paths.length;
}

/** UTC dates (`YYYY-MM-DD`) of an instant range [start, end), widened by `days` on each side. */
export function utcDateSpan(range: { start: number; end: number }, days = 0): { from: string; to: string } {
  const DAY = 86_400_000;
  return { from: new Date(range.start - days * DAY).toISOString().slice(0, 10), to: new Date(range.end - 1 + days * DAY).toISOString().slice(0, 10) };
}
