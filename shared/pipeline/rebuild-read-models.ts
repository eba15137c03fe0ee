import { daysBetween, readEventPages } from '../store/event-repository';
import { readVersionedOrders, upsertOrders } from '../analytics/store/order-store';
import type { OrderSource, StoredSources } from '../orders/order-sources';
import { batchWrite } from '../store/batch-write';
import { queryAll } from '../store/query-all';
import type { Projector } from './projector';
import { readModelProjectors, runProjectors } from './read-models';

export interface RebuildSummary {
  projectors: string[];
  entries: number;
  events: number;
  orders: number;
  /** Orders moved from the per-order DynamoDB items of earlier versions into the analytics store. */
  movedOrders: number;
}

/**
 * Replays a pixel's stored events (day by day, each page as the entry it came from) and its orders
 * (by order date) through read-model projectors: after a new read model is added, or to repair
 * one. Projectors are idempotent, so replaying over a current read model changes nothing, and
 * the live pipeline may keep running meanwhile.
 */
export async function rebuildReadModels(
  pixelId: string,
  range: { from: Date; to: Date },
  projectors: readonly Projector[] = readModelProjectors,
): Promise<RebuildSummary> {
  const summary: RebuildSummary = { projectors: projectors.map((projector) => projector.name), entries: 0, events: 0, orders: 0, movedOrders: 0 };
  summary.movedOrders = await moveStoredOrders(pixelId, range);
  for (const day of daysBetween(range.from, range.to)) {
    for (const page of await readEventPages(pixelId, [day])) {
      await runProjectors({ pixelId, entries: [{ entryId: page.entryId, acceptedAt: page.acceptedAt, events: page.events, lost: page.lost, superseded: [] }], orders: [] }, projectors);
      summary.entries++;
      summary.events += page.events.length;
    }
  }
  const { orders, deleted } = await readVersionedOrders(pixelId, range.from, range.to);
  for (let start = 0; start < orders.length; start += 100) {
    await runProjectors({ pixelId, entries: [], orders: orders.slice(start, start + 100) }, projectors);
  }
  // Orders whose statements were all taken back: a read model that missed the deletion drops them.
  for (let start = 0; start < deleted.length; start += 100) {
    await runProjectors({ pixelId, entries: [], orders: [], deletedOrders: deleted.slice(start, start + 100) }, projectors);
  }
  summary.orders = orders.length;
  return summary;
}

/**
 * Earlier versions kept each order as a DynamoDB item (`PIXEL#<pixelId>#ORDER#<orderId>` /
 * `ORDER`, listed by order month on GSI1 under `PIXEL#<pixelId>#ORDERS#<YYYY-MM>`) with its
 * statements in `sources`. Those statements are written to the orders table, with their keys, so
 * the merge finds them already there when this runs again; then the items are deleted.
 */
async function moveStoredOrders(pixelId: string, range: { from: Date; to: Date }): Promise<number> {
  let moved = 0;
  for (const month = new Date(Date.UTC(range.from.getUTCFullYear(), range.from.getUTCMonth(), 1)); month < range.to; month.setUTCMonth(month.getUTCMonth() + 1)) {
    const items = await queryAll({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk',
      ExpressionAttributeValues: { ':pk': `PIXEL#${pixelId}#ORDERS#${month.toISOString().slice(0, 7)}` },
    });
    if (items.length === 0) continue;
    const sources = items
      .filter((item) => item.deleted !== true && typeof item.sources === 'string')
      .flatMap((item) => Object.entries(JSON.parse(item.sources as string) as StoredSources).map(([key, source]): OrderSource => ({ key, ...source })));
    await upsertOrders(pixelId, sources);
    await batchWrite(items.map((item) => ({ DeleteRequest: { Key: { PK: item.PK, SK: item.SK } } })));
    moved += items.filter((item) => item.deleted !== true).length;
  }
  return moved;
}
