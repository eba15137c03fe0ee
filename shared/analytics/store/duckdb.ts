import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/**
 * The analytics engine: one embedded DuckDB per process, in memory, loaded on first use so that
 * a function that never computes analytics never pays for it (it is a native module of tens of
 * megabytes). Every request gets a connection of its own, so concurrent requests of the local
 * server do not share transactions or temporary tables; connections are cheap, the instance is
 * shared.
 */
let instance: Promise<DuckDBInstance> | undefined;

async function createInstance(): Promise<DuckDBInstance> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  // In a function, DuckDB takes at most 60 % of its memory (the rest is Node's) and spills to /tmp
  // past it; elsewhere its own default, most of the machine's memory.
  const functionMemoryMb = Number(process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE);
  return DuckDBInstance.create(':memory:', {
    // No extension is ever downloaded: Parquet, JSON and ICU (time zones) are built into the binding.
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'true',
    ...(functionMemoryMb > 0 ? { memory_limit: `${Math.floor(functionMemoryMb * 0.6)}MB` } : {}),
  });
}

/** Runs `work` on a fresh connection of the process's DuckDB, closed afterwards. */
export async function withDuckDB<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const engine = await (instance ??= createInstance().catch((error: unknown) => {
    instance = undefined;
    throw error;
  }));
  const connection = await engine.connect();
  try {
    return await work(connection);
  } finally {
    connection.closeSync();
  }
}

/** A SQL string literal: for file paths and names the engine reads, which a statement cannot take as parameters. */
export const sqlString = (text: string): string => `'${text.replaceAll("'", "''")}'`;
