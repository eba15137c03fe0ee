import { sqlString } from './duckdb';
import { fileKeyOf, liveFiles } from './partitions';
import { analyticsStore } from './store-config';
import type { TableDefinition } from './tables';

/** A live file of a table: its date, its object key and a local path DuckDB reads it from. */
export interface LiveFile {
  date: string;
  key: string;
  path: string;
}

/** Every date, for tables read whole (partitioned by the day of an import, not of what they hold). */
export const ALL_DATES = { from: '0000-01-01', to: '9999-12-31' } as const;

/** The live files of a pixel's table over UTC dates `from`…`to`, fetched to local paths. */
export async function liveTableFiles(table: TableDefinition, pixelId: string, range: { from: string; to: string }): Promise<LiveFile[]> {
  const store = analyticsStore();
  const partitions = await liveFiles(pixelId, table.name, range.from, range.to);
  return Promise.all(
    partitions.flatMap(({ date, files }) =>
      files.map(async (name) => {
        const key = fileKeyOf(table.name, pixelId, date, name);
        return { date, key, path: await store.localPath(key) };
      }),
    ),
  );
}

/** What the version of a table's content read whole is: its live files (objects never change). */
export const versionOf = (files: readonly LiveFile[]): string => files.map((file) => file.key).join('\n');

/** A SELECT of the table's columns from `files`, or of no row at all when there are none (still valid SQL). */
export function selectFrom(table: TableDefinition, files: readonly LiveFile[]): string {
  if (files.length === 0) return `SELECT ${table.columns.map((column) => `NULL::${column.type} AS "${column.name}"`).join(', ')} WHERE false`;
  const columns = table.columns.map((column) => `"${column.name}"`).join(', ');
  return `SELECT ${columns} FROM read_parquet([${files.map((file) => sqlString(file.path)).join(', ')}], union_by_name = true, hive_partitioning = false)`;
}

/** UTC date (`YYYY-MM-DD`) of an instant in epoch milliseconds. */
export const utcDateOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
