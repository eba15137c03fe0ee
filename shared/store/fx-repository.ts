import { FxTable } from '../ads/fx-table';
import type { FxRatesEntry } from '../schemas/ad-import';
import { bumpCollectionVersion, readCollectionVersion } from './collection-version';
import { tableName } from './dynamo-client';
import { mergeItems } from './merge-items';
import { queryAll } from './query-all';
import { VersionedCache } from './versioned-cache';

/**
 * A pixel's exchange rates, one item per date (see table-design.ts):
 * - head   `PK=PIXEL#<pixelId>#FX`  `SK=DIRECTORY`        { version }
 * - a date `PK=PIXEL#<pixelId>#FX`  `SK=DATE#<YYYY-MM-DD>` { rates: JSON of { CODE: units per USD } }
 *
 * Importing a date merges per currency: the given currencies' rates replace the stored ones and
 * the date's other currencies stay, so a file that adds one currency does not erase the others,
 * and two imports running at once both land (merge-items.ts).
 */
const fxPk = (pixelId: string) => `PIXEL#${pixelId}#FX`;
const DATE_SK_PREFIX = 'DATE#';

export async function upsertFxRates(pixelId: string, entries: readonly FxRatesEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const given = new Map<string, Record<string, number>>();
  for (const entry of entries) given.set(entry.date, { ...given.get(entry.date), ...entry.rates });

  await mergeItems(
    [...given].map(([date, rates]) => ({
      key: { PK: fxPk(pixelId), SK: DATE_SK_PREFIX + date },
      merge: (stored: Record<string, unknown> | undefined) => ({
        date,
        rates: JSON.stringify({ ...(stored ? (JSON.parse(stored.rates as string) as Record<string, number>) : {}), ...rates }),
      }),
    })),
    { concurrency: 8 },
  );
  await bumpCollectionVersion(fxPk(pixelId), new Date());
}

/**
 * Per container, validated against the version on every call like the ad list (ad-repository.ts).
 * Bounded by pixels and by dates held in all (50 pixels of 10 years of daily rates, about).
 */
const fxTableCache = new VersionedCache<FxTable>({ maxEntries: 50, maxWeight: 200_000, weigh: (table) => table.dateCount });

/** Every date of the pixel's rates; an empty table when it has none. */
export async function loadFxTable(pixelId: string): Promise<FxTable> {
  const cacheKey = `${tableName()}\n${pixelId}`;
  const version = await readCollectionVersion(fxPk(pixelId));
  const cached = fxTableCache.get(cacheKey, version);
  if (cached) return cached;

  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': fxPk(pixelId), ':prefix': DATE_SK_PREFIX },
    ConsistentRead: true,
  });
  const table = new FxTable(items.map((item): FxRatesEntry => ({ date: item.date as string, rates: JSON.parse(item.rates as string) })));
  fxTableCache.set(cacheKey, version, table);
  return table;
}
