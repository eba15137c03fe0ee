import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { RetryableFault } from '../faults';
import { mapWithConcurrency } from '../map-with-concurrency';
import { mergeOrder, type FieldTimes, type OrderState } from '../orders/merge-order';
import { orderSchema, type Order, type OrderUpdate } from '../orders/order';
import { batchGet, type ItemKey } from './batch-get';
import { batchWrite } from './batch-write';
import { bulkDocumentClient, documentClient, tableName } from './dynamo-client';
import { transactionChunks } from './transaction-chunks';
import { queryAll } from './query-all';

/**
 * Orders of a pixel, from purchase events and the order import.
 *
 * Items (see table-design.ts):
 * - order `PK=PIXEL#<pixelId>#ORDER#<orderId>`  `SK=ORDER`
 *         `GSI1PK=PIXEL#<pixelId>#ORDERS#<YYYY-MM>`  `GSI1SK=<orderDate>#<orderId>`
 *         { ...Order as attributes, fieldTimes, version, sources: JSON }
 *
 * By id for upserts (one partition per order, so a busy shop's writes spread); by order month
 * and date on GSI1 for the revenue queries, which read a date range month by month.
 *
 * An order is a function of its sources: every statement made about it (a purchase event, an
 * imported line), each kept under a stable key, folded with the merge rules. A source replaces
 * the one under the same key only when it comes earlier in the log (`pos`), so the stored order
 * depends on which statements were made, never on the order or the number of times they were
 * applied: a retry, a duplicate or a late projection changes nothing. Each write is a
 * read-fold-write guarded by `version`; a write that loses a race re-reads and folds again.
 *
 * An order whose every statement was taken back is not deleted but left as a tombstone
 * `{ deleted: true, sources: "{}", version }` (keeping its GSI1 keys, so a rebuild over its date
 * range still meets it): the version keeps counting through it, so read models that copied the
 * order learn of the deletion with a version newer than any copy, and of a later re-creation
 * with a newer one still. Every read skips tombstones.
 *
 * Writes are batched: the orders of one upsert are written by TransactWriteItems, up to 100 an
 * call, each Put still conditional on the version its fold was read at; a transaction is all or
 * nothing, so a failed condition (or a conflict with another writer) writes none of its orders,
 * which are read again, folded again and written in the next round. Between two transactions of
 * one upsert a crash leaves some orders written and some not: each order is complete on its own
 * (its sources and version), and running the same sources again writes only what is missing.
 * The local store answers TransactWriteItems too (lib/local/dynalite-transactions.ts), so this
 * one path runs everywhere.
 */
const ORDER_SK = 'ORDER';
const MAX_ATTEMPTS = 6;
const READ_CONCURRENCY = 4;
const TRANSACTION_CONCURRENCY = 4;

const orderKey = (pixelId: string, orderId: string): ItemKey => ({ PK: `PIXEL#${pixelId}#ORDER#${orderId}`, SK: ORDER_SK });
export const ordersByMonthKey = (pixelId: string, month: string) => `PIXEL#${pixelId}#ORDERS#${month}`;

/** One statement about an order, as the order keeps it. */
export interface OrderSource {
  /** Stable per statement: `event:<eventId>`, or `import:<hash of the line>`. */
  key: string;
  /** Log position of the statement; of two under one key the smaller wins. Imports use `import`. */
  pos: string;
  /** When the service received it: the order's `createdAt` is the earliest, `updatedAt` the latest. */
  at: string;
  update: OrderUpdate;
}

/**
 * Takes back the statement under `key` if it came later in the log than `beforePos`: that
 * delivery of an event lost to an earlier one, which says something else (or nothing) about
 * this order. Idempotent; an order left without any statement is deleted.
 */
export interface OrderRetraction {
  orderId: string;
  key: string;
  beforePos: string;
}

/** An order as stored, with the store's version of it: higher is newer, for read models that keep copies. */
export interface VersionedOrder {
  order: Order;
  version: number;
}

/** An order whose statements were all taken back, at the store version that deleted it (newer than any copy of it). */
export interface DeletedOrder {
  orderId: string;
  version: number;
}

export interface UpsertOrdersResult {
  created: number;
  updated: number;
  /** Orders the sources left as they were (a retry, a duplicate, a statement already known). */
  unchanged: number;
  /** Every order the sources are about, as stored afterwards (an order whose statements were all taken back is in `deleted`). */
  orders: VersionedOrder[];
  /** Orders the retractions left without statements, deleted now or before (a retry reports them again). */
  deleted: DeletedOrder[];
}

/**
 * Adds sources to their orders, creating the ones not stored yet; each order is written once.
 */
export async function upsertOrders(pixelId: string, sources: readonly OrderSource[], retractions: readonly OrderRetraction[] = []): Promise<UpsertOrdersResult> {
  const result: UpsertOrdersResult = { created: 0, updated: 0, unchanged: 0, orders: [], deleted: [] };
  if (sources.length === 0 && retractions.length === 0) return result;
  const byOrder = new Map<string, OrderSource[]>();
  for (const retraction of retractions) byOrder.set(retraction.orderId, byOrder.get(retraction.orderId) ?? []);
  for (const source of sources) byOrder.set(source.update.orderId, [...(byOrder.get(source.update.orderId) ?? []), source]);

  const stored = new Map(
    (await batchGet([...byOrder.keys()].map((orderId) => orderKey(pixelId, orderId)), { concurrency: READ_CONCURRENCY })).map((item) => [
      item.orderId as string,
      item,
    ]),
  );
  const retractionsOf = new Map<string, OrderRetraction[]>();
  for (const retraction of retractions) retractionsOf.set(retraction.orderId, [...(retractionsOf.get(retraction.orderId) ?? []), retraction]);
  const work = [...byOrder].map(([orderId, orderSources]): OrderWork => ({ orderId, sources: orderSources, retractions: retractionsOf.get(orderId) ?? [], item: stored.get(orderId) }));
  const outcomes = await applyInTransactions(pixelId, work);
  for (const { outcome, order, deleted } of outcomes) {
    result[outcome]++;
    if (order) result.orders.push(order);
    if (deleted) result.deleted.push(deleted);
  }
  return result;
}

type StoredSources = Record<string, Omit<OrderSource, 'key'>>;

interface OrderWork {
  orderId: string;
  sources: readonly OrderSource[];
  retractions: readonly OrderRetraction[];
  /** The order's item as last read (undefined: not stored). */
  item: Record<string, unknown> | undefined;
}

type Outcome = { outcome: Exclude<keyof UpsertOrdersResult, 'orders' | 'deleted'>; order?: VersionedOrder; deleted?: DeletedOrder };

/** What folding the sources into the item read calls for: nothing, or one conditional Put whose success is `written`. */
type Plan = { done: Outcome } | { put: { Item: Record<string, unknown>; ConditionExpression: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> }; written: Outcome };

/** The merge rules: a retraction takes back a later statement, a source replaces one under its key only when it is earlier in the log. */
function planWrite(pixelId: string, { orderId, sources, retractions, item }: OrderWork): Plan {
  const live = item !== undefined && item.deleted !== true;
  const known: StoredSources = item?.sources ? (JSON.parse(item.sources as string) as StoredSources) : {};
  const merged: StoredSources = { ...known };
  let changed = false;
  for (const { key, beforePos } of retractions) {
    const current = merged[key];
    if (current !== undefined && current.pos > beforePos) {
      delete merged[key];
      changed = true;
    }
  }
  for (const { key, ...source } of sources) {
    const current = merged[key];
    if (current === undefined || source.pos < current.pos) {
      merged[key] = source;
      changed = true;
    }
  }
  if (!changed) {
    // A retry after a crash reports the deletion again, so read models still hear of it.
    if (item && !live) return { done: { outcome: 'unchanged', deleted: { orderId, version: item.version as number } } };
    return { done: { outcome: 'unchanged', ...(item ? { order: versionedOrderOf(item) } : {}) } };
  }
  const version = item ? (item.version as number) : 0;
  const condition = item
    ? { ConditionExpression: '#version = :version', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': version } }
    : { ConditionExpression: 'attribute_not_exists(PK)' };
  if (Object.keys(merged).length === 0) {
    // Only taken-back statements were left: the order never existed.
    return {
      put: { Item: { ...orderKey(pixelId, orderId), ...(item?.GSI1PK ? { GSI1PK: item.GSI1PK, GSI1SK: item.GSI1SK } : {}), orderId, deleted: true, sources: '{}', version: version + 1 }, ...condition },
      written: { outcome: 'updated', deleted: { orderId, version: version + 1 } },
    };
  }
  const next = foldSources(merged);
  const outcome = !live ? 'created' : fingerprint(stateOf(item!)) === fingerprint(next) ? 'unchanged' : 'updated';
  return { put: { Item: orderItem(pixelId, next, merged, version + 1), ...condition }, written: { outcome, order: { order: next.order, version: version + 1 } } };
}


/**
 * Rounds of: fold every order still to write, write the changed ones in transactions, read again
 * the orders of any transaction that was cancelled (a failed version condition, or a conflict with
 * another writer's transaction), which wrote none of them.
 */
async function applyInTransactions(pixelId: string, work: readonly OrderWork[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let pending = work;
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === MAX_ATTEMPTS) throw new RetryableFault(`${pending.length} order(s) kept changing under concurrent writes`);
    const writes: Array<{ work: OrderWork; plan: Extract<Plan, { put: unknown }> }> = [];
    for (const one of pending) {
      const plan = planWrite(pixelId, one);
      if ('done' in plan) outcomes.push(plan.done);
      else writes.push({ work: one, plan });
    }
    const again: OrderWork[] = [];
    await mapWithConcurrency(transactionChunks(writes, ({ plan }) => JSON.stringify(plan.put.Item).length), TRANSACTION_CONCURRENCY, async (chunk) => {
      try {
        // Up to 100 items: a bulk call, with the bulk client's longer attempt timeout.
        await bulkDocumentClient.send(new TransactWriteCommand({ TransactItems: chunk.map(({ plan }) => ({ Put: { TableName: tableName(), ...plan.put } })) }));
        outcomes.push(...chunk.map(({ plan }) => plan.written));
      } catch (error) {
        if ((error as Error).name !== 'TransactionCanceledException') throw error;
        const fresh = new Map((await batchGet(chunk.map(({ work: one }) => orderKey(pixelId, one.orderId)))).map((item) => [item.orderId as string, item]));
        again.push(...chunk.map(({ work: one }) => ({ ...one, item: fresh.get(one.orderId) })));
      }
    });
    pending = again;
  }
  return outcomes;
}

/**
 * The order its sources describe: merged in a fixed order (time received, then position), so the
 * result is the same whatever order they arrived in.
 */
export function foldSources(sources: StoredSources): OrderState {
  const ordered = Object.entries(sources).sort(([keyA, a], [keyB, b]) =>
    a.at < b.at ? -1 : a.at > b.at ? 1 : a.pos < b.pos ? -1 : a.pos > b.pos ? 1 : keyA < keyB ? -1 : keyA > keyB ? 1 : 0,
  );
  let state: OrderState | undefined;
  let latest = '';
  for (const [, source] of ordered) {
    state = mergeOrder(state, source.update, new Date(source.at));
    if (source.at > latest) latest = source.at;
  }
  if (!state) throw new Error('an order needs at least one source');
  state.order.updatedAt = new Date(latest).toISOString();
  return state;
}

/**
 * Stores orders that do not exist yet (demo data), in batches, folded exactly as `upsertOrders`
 * folds them: an unconditional write, so never for orders that may already exist.
 */
export async function writeNewOrders(pixelId: string, sources: readonly OrderSource[]): Promise<VersionedOrder[]> {
  const byOrder = new Map<string, StoredSources>();
  for (const { key, ...source } of sources) byOrder.set(source.update.orderId, { ...byOrder.get(source.update.orderId), [key]: source });
  const written = [...byOrder.values()].map((merged) => ({ merged, state: foldSources(merged) }));
  await batchWrite(written.map(({ merged, state }) => ({ PutRequest: { Item: orderItem(pixelId, state, merged, 1) } })));
  return written.map(({ state }) => ({ order: state.order, version: 1 }));
}

/** An order's item: its folded state as attributes, its statements, and the version it is at. */
function orderItem(pixelId: string, state: OrderState, sources: StoredSources, version: number): Record<string, unknown> {
  const { orderId, orderDate } = state.order;
  return {
    ...orderKey(pixelId, orderId),
    GSI1PK: ordersByMonthKey(pixelId, orderDate.slice(0, 7)),
    GSI1SK: `${orderDate}#${orderId}`,
    ...state.order,
    fieldTimes: state.fieldTimes,
    sources: JSON.stringify(sources),
    version,
  };
}

async function readItem(pixelId: string, orderId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: orderKey(pixelId, orderId), ConsistentRead: true }));
  return Item;
}

export async function getOrder(pixelId: string, orderId: string): Promise<Order | undefined> {
  const item = await readItem(pixelId, orderId);
  return item && item.deleted !== true ? stateOf(item).order : undefined;
}

/**
 * The pixel's orders placed in `[from, to)`, oldest first: one GSI1 query per month of the range.
 * The index is eventually consistent, so an order written a moment ago may be missing.
 */
export async function readOrders(pixelId: string, from: Date, to: Date): Promise<Order[]> {
  return (await readOrderItems(pixelId, from, to)).filter((item) => item.deleted !== true).map((item) => stateOf(item).order);
}

/**
 * `readOrders` with each order's version, and the tombstones of orders placed in the range whose
 * statements were all taken back, for replaying orders through read models.
 */
export async function readVersionedOrders(pixelId: string, from: Date, to: Date): Promise<{ orders: VersionedOrder[]; deleted: DeletedOrder[] }> {
  const items = await readOrderItems(pixelId, from, to);
  return {
    orders: items.filter((item) => item.deleted !== true).map(versionedOrderOf),
    deleted: items.filter((item) => item.deleted === true).map((item) => ({ orderId: item.orderId as string, version: item.version as number })),
  };
}

async function readOrderItems(pixelId: string, from: Date, to: Date): Promise<Array<Record<string, unknown>>> {
  if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime())) throw new RangeError('readOrders needs valid dates');
  if (from >= to) return [];
  const months: string[] = [];
  const cursor = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), 1));
  while (cursor < to) {
    months.push(cursor.toISOString().slice(0, 7));
    cursor.setUTCMonth(cursor.getUTCMonth() + 1);
  }
  const pages = await mapWithConcurrency(months, READ_CONCURRENCY, (month) =>
    queryAll({
      IndexName: 'GSI1',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': ordersByMonthKey(pixelId, month), ':from': from.toISOString(), ':to': to.toISOString() },
    }),
  );
  return pages.flat();
}

function versionedOrderOf(item: Record<string, unknown>): VersionedOrder {
  return { order: stateOf(item).order, version: item.version as number };
}

function stateOf(item: Record<string, unknown>): OrderState {
  const { PK: _pk, SK: _sk, GSI1PK: _gsiPk, GSI1SK: _gsiSk, fieldTimes, version: _version, sources: _sources, ...order } = item;
  return { order: orderSchema.parse(order), fieldTimes: (fieldTimes ?? {}) as FieldTimes };
}

/** The state without `updatedAt`, with keys sorted: equal fingerprints mean a write would change nothing. */
function fingerprint(state: OrderState): string {
  const { updatedAt: _updatedAt, ...order } = state.order;
  return stableJson({ order, fieldTimes: state.fieldTimes });
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
