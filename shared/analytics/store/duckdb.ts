import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { NotStartedError } from '../../faults';
import { remainingMs } from '../../request-deadline';

/** What a request keeps of its time after the engine is interrupted: enough to answer. */
const ANSWER_MS = 300;

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

/**
 * Runs `work` on a fresh connection of the process's DuckDB, closed afterwards. Under a request,
 * the work is held to its deadline as store calls are: what is still running shortly before it is
 * interrupted and ends as a `NotStartedError`, nothing of it having been stored, so the request
 * answers (400 on its own size, 503 after a store fault) instead of being cut off by the runtime.
 */
export async function withDuckDB<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const engine = await (instance ??= createInstance().catch((error: unknown) => {
    instance = undefined;
    throw error;
  }));
  const connection = await engine.connect();
  const left = remainingMs();
  let interrupted = false;
  const timer = Number.isFinite(left)
    ? setTimeout(() => {
        interrupted = true;
        connection.interrupt();
      }, Math.max(0, left - ANSWER_MS))
    : undefined;
  try {
    return await work(connection);
  } catch (error) {
    if (interrupted) throw new NotStartedError('The analytics engine ran out of the request\'s time', { cause: error });
    throw error;
  } finally {
    clearTimeout(timer);
    connection.closeSync();
  }
}

/** A SQL string literal: for file paths and names the engine reads, which a statement cannot take as parameters. */
export const sqlString = (text: string): string => `'${text.replaceAll("'", "''")}'`;
