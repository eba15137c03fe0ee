import type { SkuCost } from '../../schemas/cost-settings';
import { newEventId } from '../../tracking/event-id';
import { withDuckDB } from './duckdb';
import { ALL_DATES, liveTableFiles, selectFrom } from './table-files';
import { TableImport } from './table-import';
import { SKU_COSTS_TABLE } from './tables';

/**
 * The read rule of SKU costs, written once: for each SKU and start date, the line of the latest
 * import is live; importing a line for a SKU and start date already stored replaces it, and
 * lines are never deleted.
 */
export const LIVE_SKU_COSTS_SQL = (rows: string) => `SELECT * FROM (${rows}) QUALIFY row_number() OVER (PARTITION BY sku, effective_from ORDER BY import_id DESC) = 1`;

/** Stores SKU cost lines as one import (one file, under the import's UTC date); a later line of the same SKU and start date wins. */
export async function writeSkuCosts(pixelId: string, lines: readonly SkuCost[], now: Date = new Date()): Promise<void> {
  if (lines.length === 0) return;
  const importId = newEventId(now);
  const writer = new TableImport(SKU_COSTS_TABLE, pixelId, importId, now, { key: ['sku', 'effective_from'], sortBy: ['sku', 'effective_from'] });
  try {
    for (const line of lines) await writer.add([line.sku, line.effectiveFrom, line.effectiveTo ?? null, line.cost, line.currency]);
    await writer.finish();
  } finally {
    await writer.discard();
  }
}

/** Every live SKU cost line of the pixel (a shop's catalogue, read whole by a query with cost measures). */
export async function readSkuCosts(pixelId: string): Promise<SkuCost[]> {
  const files = await liveTableFiles(SKU_COSTS_TABLE, pixelId, ALL_DATES);
  if (files.length === 0) return [];
  const rows = await withDuckDB(async (connection) =>
    (
      await connection.runAndReadAll(
        `SELECT sku, cost, currency, strftime(effective_from, '%Y-%m-%d') AS effective_from, strftime(effective_to, '%Y-%m-%d') AS effective_to
         FROM (${LIVE_SKU_COSTS_SQL(selectFrom(SKU_COSTS_TABLE, files))}) ORDER BY sku, effective_from`,
      )
    ).getRowObjectsJS(),
  );
  return rows.map((row) => ({
    sku: row.sku as string,
    cost: row.cost as number,
    currency: row.currency as string,
    effectiveFrom: row.effective_from as string,
    ...(row.effective_to === null ? {} : { effectiveTo: row.effective_to as string }),
  }));
}
