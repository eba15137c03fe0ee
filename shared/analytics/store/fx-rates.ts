import { FxTable } from '../../ads/fx-table';
import { tableName } from '../../store/dynamo-client';
import { VersionedCache } from '../../store/versioned-cache';
import { withDuckDB } from './duckdb';
import { ALL_DATES, liveTableFiles, selectFrom, versionOf } from './table-files';
import { FX_RATES_TABLE } from './tables';

/**
 * The read rule of the exchange rates, written once: for each date and currency, the rate of the
 * latest import is live. An import that gives some currencies of a date leaves the others as
 * they were, so rates merge per currency within a date.
 */
export const LIVE_FX_RATES_SQL = (rows: string) => `SELECT * FROM (${rows}) QUALIFY row_number() OVER (PARTITION BY date, currency ORDER BY import_id DESC) = 1`;

export const FX_RATES_LAYOUT = { key: ['date', 'currency'], sortBy: ['date', 'currency'] } as const;

/** A rate as a row of the fx_rates table (as TableImport stages it: without the import's own columns). */
export function fxRateRow(date: string, currency: string, unitsPerUsd: number): unknown[] {
  return [date, currency, unitsPerUsd];
}

/**
 * Per container, valid for one set of live files like the ad list (ad-facts.ts). Bounded by
 * pixels and by dates held in all (50 pixels of 10 years of daily rates, about).
 */
const fxTableCache = new VersionedCache<FxTable>({ maxEntries: 50, maxWeight: 200_000, weigh: (table) => table.dateCount });

/**
 * Every live rate of the pixel (an empty table when it has none). Read whole: a conversion may
 * need a currency's latest rate from any earlier date, and budgets its latest of all; a pixel
 * holds a few thousand rates, and the table is partitioned by import, so a read is a few files.
 */
export async function readFxTable(pixelId: string): Promise<FxTable> {
  const files = await liveTableFiles(FX_RATES_TABLE, pixelId, ALL_DATES);
  const cacheKey = `${tableName()}\n${pixelId}`;
  const version = versionOf(files);
  const cached = fxTableCache.get(cacheKey, version);
  if (cached) return cached;
  const rows = await withDuckDB(async (connection) =>
    (await connection.runAndReadAll(`SELECT strftime(date, '%Y-%m-%d') AS date, currency, units_per_usd FROM (${LIVE_FX_RATES_SQL(selectFrom(FX_RATES_TABLE, files))})`)).getRowObjectsJS(),
  );
  const table = new FxTable(rows.map((row) => ({ date: row.date as string, rates: { [row.currency as string]: row.units_per_usd as number } })));
  fxTableCache.set(cacheKey, version, table);
  return table;
}
