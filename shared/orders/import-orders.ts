import type { ImportProblem, ImportRejection } from '../import/rejections';
import { checkRecord } from '../import/checked-record';
import { readJsonLines } from '../import/json-lines';
import { createHash } from 'node:crypto';
import type { Projector } from '../pipeline/projector';
import { runProjectors } from '../pipeline/read-models';
import { upsertOrders } from '../analytics/store/order-store';
import type { OrderSource } from './order-sources';
import { orderImportSchema, type OrderUpdate } from './order';
import { orderUpdateFromImport } from './order-updates';

/**
 * The import behind `npm run import-orders`: an order export, one JSON order a line, streamed in
 * constant memory. Each line is validated on its own; a valid line goes through the same upsert
 * as a purchase event, an invalid one is reported (line, path, reason) and never stops the rest.
 */
export interface OrderImportSummary {
  /** Valid lines applied. */
  orders: number;
  created: number;
  updated: number;
  /** Lines that changed nothing: already imported, or older than what is stored. */
  unchanged: number;
  rejected: number;
}

export interface OrderImportOptions {
  onRejection?: (rejection: ImportRejection) => void;
  /** Lines stored per upsert; bounds memory. */
  batchSize?: number;
  /** The time a line without `updatedAt` is current as of. */
  importedAt?: Date;
  /** Counts the lines read, as they are read, for a caller that reports progress. */
  progress?: { lines: number };
  /** The read models to update; default every registered one. */
  projectors?: readonly Projector[];
}

/** An import line as a statement about its order, keyed by its content so a re-import is a repeat. */
export function importSource(update: OrderUpdate, importedAt: Date): OrderSource {
  const { asOf: _asOf, ...statement } = update;
  const key = `import:${createHash('sha256').update(JSON.stringify(statement)).digest('hex')}`;
  return { key, pos: 'import', at: importedAt.toISOString(), update };
}

/** The file as a whole cannot be read; nothing was stored. */
export class OrderImportFileError extends Error {}

const DEFAULT_BATCH_SIZE = 20_000;

export async function importOrdersFile(pixelId: string, file: string, options: OrderImportOptions = {}): Promise<OrderImportSummary> {
  const importedAt = options.importedAt ?? new Date();
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const summary: OrderImportSummary = { orders: 0, created: 0, updated: 0, unchanged: 0, rejected: 0 };
  const batch: OrderUpdate[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const updates = batch.splice(0);
    const result = await upsertOrders(pixelId, updates.map((update) => importSource(update, importedAt)));
    // The same projectors the pipeline runs: a backfill updates every read model.
    await runProjectors({ pixelId, entries: [], orders: result.orders, deletedOrders: result.deleted }, options.projectors);
    summary.orders += updates.length;
    summary.created += result.created;
    summary.updated += result.updated;
    summary.unchanged += updates.length - result.created - result.updated;
  };
  const reject = (location: string, problems: ImportProblem[]) => {
    summary.rejected++;
    options.onRejection?.({ location, problems });
  };

  for await (const line of readJsonLines(file, (message) => new OrderImportFileError(message))) {
    if (options.progress) options.progress.lines = line.lineNumber;
    const location = `line ${line.lineNumber}`;
    if ('parseError' in line) {
      // The parser's message quotes the line, and a line can hold an email address: not echoed.
      reject(location, [{ path: '', message: 'Not valid JSON' }]);
      continue;
    }
    const checked = checkRecord(line.value, orderImportSchema);
    if ('problems' in checked) {
      reject(location, checked.problems);
      continue;
    }
    batch.push(orderUpdateFromImport(checked.data, importedAt));
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return summary;
}

/** The one-line summary the CLI prints on stdout. */
export function formatOrderImportSummary(pixelId: string, summary: OrderImportSummary): string {
  const counted = (count: number, one: string, many: string) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;
  const rejected = summary.rejected === 0 ? '' : `; ${counted(summary.rejected, 'line', 'lines')} rejected`;
  return (
    `Imported ${counted(summary.orders, 'order', 'orders')} into pixel ${pixelId} ` +
    `(${summary.created.toLocaleString('en-US')} new, ${summary.updated.toLocaleString('en-US')} updated, ${summary.unchanged.toLocaleString('en-US')} unchanged${rejected})`
  );
}
