import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

type Callback = (error: Error | null, value?: unknown) => void;

interface TableDb {
  get(key: string, callback: Callback): void;
  put(key: string, value: unknown, callback: Callback): void;
  del(key: string, callback: Callback): void;
  batch(operations: Array<{ key: string }>, callback: Callback): void;
}

interface DynaliteDbModule {
  create(options: unknown): { tableDb: TableDb };
  tableDescriptionsCached?: true;
}

/**
 * dynalite 4.0.0 reads the table's description from its store, and decodes it from JSON (about
 * 1.8 KB for this table), on every request, and again for every item of a BatchWriteItem: 166,000
 * reads and decodes in one case of the ingestion benchmark, and keeping them took about a quarter
 * off the store's CPU there, for a description that changes only when a table is created, updated
 * or deleted. This keeps each
 * description as last read, until the next write of any description, when they are all read
 * again. A read that started before a write is not kept, so no request is served a description
 * older than the last write it could see.
 *
 * The object handed out is shared. dynalite's UpdateTable and DeleteTable change the object they
 * read and then write it; the write drops the kept copy, so a change is seen at most one store
 * round trip before it is stored, and a failed write leaves nothing kept. Applied once, before
 * dynalite creates its store (it calls `db.create` when a server is made).
 */
export function cacheDynaliteTableDescriptions(): void {
  const require = createRequire(import.meta.url);
  const db = require(join(dirname(require.resolve('dynalite')), 'db', 'index.js')) as DynaliteDbModule;
  if (db.tableDescriptionsCached) return;
  db.tableDescriptionsCached = true;
  const create = db.create.bind(db);
  db.create = (options) => {
    const store = create(options);
    keepDescriptions(store.tableDb);
    return store;
  };
}

function keepDescriptions(tableDb: TableDb): void {
  const kept = new Map<string, unknown>();
  let writes = 0;
  const read = tableDb.get.bind(tableDb);
  tableDb.get = (key, callback) => {
    if (kept.has(key)) {
      const value = kept.get(key);
      process.nextTick(() => callback(null, value));
      return;
    }
    const writesBefore = writes;
    read(key, (error, value) => {
      if (!error && writes === writesBefore) kept.set(key, value);
      callback(error, value);
    });
  };
  // Dropped when a write starts, and again when it lands: a read that began while it was in flight may have kept the old one.
  const forget = () => {
    writes++;
    kept.clear();
  };
  const written =
    (write: (...args: unknown[]) => void) =>
    (...args: unknown[]) => {
      const callback = args.pop() as Callback;
      forget();
      write(...args, (error: Error | null, value?: unknown) => {
        forget();
        callback(error, value);
      });
    };
  tableDb.put = written(tableDb.put.bind(tableDb) as (...args: unknown[]) => void);
  tableDb.del = written(tableDb.del.bind(tableDb) as (...args: unknown[]) => void);
  tableDb.batch = written(tableDb.batch.bind(tableDb) as (...args: unknown[]) => void);
}
