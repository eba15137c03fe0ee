import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import { RetryableFault } from '../../faults';
import { mapWithConcurrency } from '../../map-with-concurrency';
import type { FieldTimes, OrderState } from '../../orders/merge-order';
import { orderSchema, type Order } from '../../orders/order';
import { applySources, fingerprint, foldSources, type OrderRetraction, type OrderSource, type StoredSources } from '../../orders/order-sources';
import { identityKeys } from '../identity-components';
import type { QueryOrder } from '../query-data';
import { rowObjects, withDuckDB } from './duckdb';
import { addFilesAt, liveFiles, partitionFiles, type PartitionFiles } from './partitions';
import { registerFilesView } from './table-reader';
import { storeFile } from './table-writer';
import { allBuckets, bucketOf, CURRENT_ORDERS_SQL, ORDERS_TABLE } from './tables';
import { noteAppend } from './compaction-runner';

/**
 * The orders table (tables.ts `ORDERS_TABLE`): an order is the fold of its sources
 * (orders/order-sources.ts), stored as a row per version, the highest `revision` of an order id
 * being the order.
 *
 * A write is a read-fold-append per bucket: read the bucket's live files and their version, read
 * the current row of every order the write is about, fold in the new sources, and append the
 * changed orders' next versions as one file, added to the bucket's live set only if the set is
 * still at the version read. A writer that loses that race (another write, a compaction) reads
 * again and folds again, so two writers never both build on one version. A file written and
 * never added (a crash, a lost race) is never read; its name derives from the versions it holds,
 * so running the same write again writes the same file, and a write whose sources are all known already
 * writes nothing: retries change nothing.
 */
export interface VersionedOrder {
  order: Order;
  /** The order's revision: higher is newer, for read models that keep copies. */
  version: number;
}

/** An order whose statements were all taken back, at the revision that deleted it (newer than any copy of it). */
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

/** Attempts of one bucket's write when other writers keep changing it in between. */
const MAX_ATTEMPTS = 8;
const BUCKET_CONCURRENCY = 4;

/** Adds sources to their orders (and takes back retracted ones), creating the orders not stored yet. */
export async function upsertOrders(pixelId: string, sources: readonly OrderSource[], retractions: readonly OrderRetraction[] = []): Promise<UpsertOrdersResult> {
  const result: UpsertOrdersResult = { created: 0, updated: 0, unchanged: 0, orders: [], deleted: [] };
  const byBucket = new Map<string, Map<string, OrderWork>>();
  const workOf = (orderId: string): OrderWork => {
    const bucket = bucketOf(ORDERS_TABLE, orderId);
    const orders = byBucket.get(bucket) ?? new Map<string, OrderWork>();
    byBucket.set(bucket, orders);
    const work = orders.get(orderId) ?? { orderId, sources: [], retractions: [] };
    orders.set(orderId, work);
    return work;
  };
  for (const retraction of retractions) workOf(retraction.orderId).retractions.push(retraction);
  for (const source of sources) workOf(source.update.orderId).sources.push(source);
  const outcomes = await mapWithConcurrency([...byBucket], BUCKET_CONCURRENCY, ([bucket, orders]) => upsertBucket(pixelId, bucket, [...orders.values()]));
  for (const { outcome, order, deleted } of outcomes.flat()) {
    result[outcome]++;
    if (order) result.orders.push(order);
    if (deleted) result.deleted.push(deleted);
  }
  return result;
}

interface OrderWork {
  orderId: string;
  sources: OrderSource[];
  retractions: OrderRetraction[];
}

interface CurrentRow {
  revision: number;
  deleted: boolean;
  sources: StoredSources;
}

type Outcome = { outcome: 'created' | 'updated' | 'unchanged'; order?: VersionedOrder; deleted?: DeletedOrder };

async function upsertBucket(pixelId: string, bucket: string, work: readonly OrderWork[]): Promise<Outcome[]> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const partition = await partitionFiles(pixelId, ORDERS_TABLE.name, bucket);
    const current = await readCurrentRows(pixelId, partition, work.map((one) => one.orderId));
    const outcomes: Outcome[] = [];
    const rows: unknown[][] = [];
    const versions: string[] = [];
    for (const one of work) {
      const planned = planOrder(one, current.get(one.orderId));
      outcomes.push(planned.outcome);
      if (planned.row) {
        rows.push(planned.row);
        versions.push(planned.version!);
      }
    }
    if (rows.length === 0) return outcomes;
    const name = fileNameOf(versions);
    await storeFile(ORDERS_TABLE, pixelId, bucket, name, rows);
    if (await addFilesAt(pixelId, ORDERS_TABLE.name, bucket, partition.version, [name])) {
      noteAppend(ORDERS_TABLE, pixelId, { date: bucket, files: [...partition.files, name], version: partition.version + 1 });
      return outcomes;
    }
  }
  throw new RetryableFault(`orders of bucket ${bucket} kept changing under concurrent writes`);
}

/**
 * The merge rules applied to one order's current row: nothing to write, or its next version's
 * row and what identifies it (the order, the revision and each statement's key and position).
 */
function planOrder({ orderId, sources, retractions }: OrderWork, current: CurrentRow | undefined): { outcome: Outcome; row?: unknown[]; version?: string } {
  const live = current !== undefined && !current.deleted;
  const { merged, changed } = applySources(current?.sources ?? {}, sources, retractions);
  if (!changed) {
    // A retry after a crash reports the deletion again, so read models still hear of it.
    if (current && !live) return { outcome: { outcome: 'unchanged', deleted: { orderId, version: current.revision } } };
    return { outcome: { outcome: 'unchanged', ...(current ? { order: { order: foldSources(current.sources).order, version: current.revision } } : {}) } };
  }
  const revision = (current?.revision ?? 0) + 1;
  if (Object.keys(merged).length === 0) {
    // Only taken-back statements were left: the order never existed.
    return { outcome: { outcome: 'updated', deleted: { orderId, version: revision } }, row: tombstoneRow(orderId, revision), version: versionOf(orderId, revision, merged) };
  }
  const next = foldSources(merged);
  const outcome = !live ? 'created' : fingerprint(foldSources(current.sources)) === fingerprint(next) ? 'unchanged' : 'updated';
  return { outcome: { outcome, order: { order: next.order, version: revision } }, row: orderRow(next, merged, revision), version: versionOf(orderId, revision, merged) };
}

/** What makes a version's row: its order, revision and statements (a statement is its key and log position). */
const versionOf = (orderId: string, revision: number, sources: StoredSources) =>
  `${orderId}\u0000${revision}\u0000${Object.entries(sources)
    .map(([key, source]) => `${key}@${source.pos}`)
    .sort()
    .join('\u0000')}`;

/**
 * Stores orders that do not exist yet (demo data, benchmark datasets), folded exactly as
 * `upsertOrders` folds them, without reading: never for orders that may already exist.
 */
export async function writeNewOrders(pixelId: string, sources: readonly OrderSource[]): Promise<VersionedOrder[]> {
  const byOrder = new Map<string, StoredSources>();
  for (const { key, ...source } of sources) byOrder.set(source.update.orderId, { ...byOrder.get(source.update.orderId), [key]: source });
  const byBucket = new Map<string, { rows: unknown[][]; versions: string[] }>();
  const written: VersionedOrder[] = [];
  for (const merged of byOrder.values()) {
    const state = foldSources(merged);
    const bucket = bucketOf(ORDERS_TABLE, state.order.orderId);
    const group = byBucket.get(bucket) ?? { rows: [], versions: [] };
    byBucket.set(bucket, group);
    group.rows.push(orderRow(state, merged, 1));
    group.versions.push(versionOf(state.order.orderId, 1, merged));
    written.push({ order: state.order, version: 1 });
  }
  await mapWithConcurrency([...byBucket], 2, async ([bucket, { rows, versions }]) => {
    const name = fileNameOf(versions);
    await storeFile(ORDERS_TABLE, pixelId, bucket, name, rows);
    const { version } = await partitionFiles(pixelId, ORDERS_TABLE.name, bucket);
    if (!(await addFilesAt(pixelId, ORDERS_TABLE.name, bucket, version, [name]))) throw new RetryableFault(`orders of bucket ${bucket} changed while new orders were written`);
  });
  return written;
}

/** Named by the versions it holds: the same write makes the same name, another write another. */
function fileNameOf(versions: readonly string[]): string {
  const hash = createHash('sha256');
  for (const version of versions) hash.update(version).update('\u0001');
  return hash.digest('hex').slice(0, 32);
}

/** An order's version as a row of the table, in its column order. */
function orderRow(state: OrderState, sources: StoredSources, revision: number): unknown[] {
  const { order } = state;
  const refundTimes = order.refunds.map((refund) => new Date(refund.processedAt).getTime());
  const values: Record<(typeof ORDERS_TABLE.columns)[number]['name'], unknown> = {
    order_id: order.orderId,
    revision,
    deleted: false,
    order_date: new Date(order.orderDate),
    value: order.value,
    currency: order.currency,
    source_name: order.sourceName,
    tags: order.tags,
    payment_gateway: order.paymentGateway,
    financial_status: order.financialStatus,
    refunds: JSON.stringify(order.refunds),
    first_refund_at: refundTimes.length > 0 ? new Date(Math.min(...refundTimes)) : null,
    last_refund_at: refundTimes.length > 0 ? new Date(Math.max(...refundTimes)) : null,
    user_ids: order.customer.userIds,
    email_hashes: order.customer.emailHashes,
    phone_hashes: order.customer.phoneHashes,
    items: order.items === undefined ? null : JSON.stringify(order.items),
    shipping_cost: order.shippingCost ?? null,
    shipping_charged: order.shippingCharged ?? null,
    discounts: order.discounts ?? null,
    taxes: order.taxes ?? null,
    created_at: new Date(order.createdAt),
    updated_at: new Date(order.updatedAt),
    field_times: JSON.stringify(state.fieldTimes),
    sources: JSON.stringify(sources),
  };
  return ORDERS_TABLE.columns.map((column) => values[column.name]);
}

function tombstoneRow(orderId: string, revision: number): unknown[] {
  return ORDERS_TABLE.columns.map((column) =>
    column.name === 'order_id' ? orderId : column.name === 'revision' ? revision : column.name === 'deleted' ? true : column.type === 'VARCHAR[]' ? [] : null,
  );
}

/** The current row (live or deleted) of each of `orderIds` that has one, from a bucket's files. */
async function readCurrentRows(pixelId: string, partition: PartitionFiles, orderIds: readonly string[]): Promise<Map<string, CurrentRow>> {
  if (partition.files.length === 0) return new Map();
  return withDuckDB(async (connection) => {
    await registerFilesView(connection, ORDERS_TABLE, pixelId, [partition], 'order_versions');
    const result = await connection.runAndReadAll(
      `SELECT order_id, revision, deleted, sources FROM (${CURRENT_ORDERS_SQL(`(SELECT * FROM order_versions WHERE order_id IN (SELECT unnest(from_json($ids, '["VARCHAR"]'))))`)})`,
      { ids: JSON.stringify(orderIds) },
    );
    return new Map(
      rowObjects(result).map((row) => [
        row.order_id as string,
        { revision: Number(row.revision), deleted: row.deleted === true, sources: row.deleted === true ? {} : (JSON.parse(row.sources as string) as StoredSources) },
      ]),
    );
  });
}

/** Makes every version of the pixel's orders, in every bucket's live files, readable as the view `order_versions`. */
async function registerOrderVersions(connection: DuckDBConnection, pixelId: string): Promise<void> {
  const buckets = allBuckets(ORDERS_TABLE);
  await registerFilesView(connection, ORDERS_TABLE, pixelId, await liveFiles(pixelId, ORDERS_TABLE.name, buckets[0]!, buckets.at(-1)!), 'order_versions');
}

/** Makes the pixel's current, live orders readable on a connection as the view `orders`. */
export async function registerOrders(connection: DuckDBConnection, pixelId: string): Promise<void> {
  await registerOrderVersions(connection, pixelId);
  await connection.run(`CREATE OR REPLACE TEMP VIEW orders AS SELECT * FROM (${CURRENT_ORDERS_SQL('order_versions')}) WHERE NOT deleted`);
}

/** The columns an `Order` is rebuilt from, times as epoch milliseconds. */
const ORDER_SELECT = `order_id, epoch_ms(order_date) AS order_ms, value, currency, source_name, tags, payment_gateway, financial_status, refunds,
  user_ids, email_hashes, phone_hashes, items, shipping_cost, shipping_charged, discounts, taxes, epoch_ms(created_at) AS created_ms, epoch_ms(updated_at) AS updated_ms`;

function orderOfRow(row: Record<string, unknown>): Order {
  const optional = (name: string, value: unknown) => (value === null || value === undefined ? {} : { [name]: value });
  return {
    orderId: row.order_id as string,
    orderDate: new Date(Number(row.order_ms)).toISOString(),
    value: row.value as number | null,
    currency: row.currency as string | null,
    sourceName: row.source_name as string | null,
    tags: row.tags as string[],
    paymentGateway: row.payment_gateway as string | null,
    financialStatus: row.financial_status as Order['financialStatus'],
    refunds: row.refunds === '[]' ? [] : (JSON.parse(row.refunds as string) as Order['refunds']),
    customer: { emailHashes: row.email_hashes as string[], phoneHashes: row.phone_hashes as string[], userIds: row.user_ids as string[] },
    ...optional('items', row.items === null ? null : JSON.parse(row.items as string)),
    ...optional('shippingCost', row.shipping_cost),
    ...optional('shippingCharged', row.shipping_charged),
    ...optional('discounts', row.discounts),
    ...optional('taxes', row.taxes),
    createdAt: new Date(Number(row.created_ms)).toISOString(),
    updatedAt: new Date(Number(row.updated_ms)).toISOString(),
  };
}

async function selectOrders(pixelId: string, where: string, values: Record<string, string | number> = {}): Promise<Order[]> {
  return withDuckDB(async (connection) => {
    await registerOrders(connection, pixelId);
    const result = await connection.runAndReadAll(`SELECT ${ORDER_SELECT} FROM orders WHERE ${where} ORDER BY order_date, order_id`, values);
    return rowObjects(result).map(orderOfRow);
  });
}

export async function getOrder(pixelId: string, orderId: string): Promise<Order | undefined> {
  const [order] = await selectOrders(pixelId, 'order_id = $orderId', { orderId });
  return order === undefined ? undefined : orderSchema.parse(order);
}

/** The pixel's orders placed in `[from, to)`, oldest first. */
export async function readOrders(pixelId: string, from: Date, to: Date): Promise<Order[]> {
  return selectOrders(pixelId, 'order_date >= make_timestamp($from * 1000) AND order_date < make_timestamp($to * 1000)', { from: from.getTime(), to: to.getTime() });
}

/** An order's items as costing reads them: SKU, quantity, unit price and unit cost, nothing else. */
const costedItems = (items: NonNullable<Order['items']>): NonNullable<QueryOrder['items']> =>
  items.map(({ sku, quantity, price, cost }) => ({ ...(sku === undefined ? {} : { sku }), quantity, price, ...(cost === undefined ? {} : { cost }) }));

/** An order as the query reads it: the stored order without bookkeeping. */
export function toQueryOrder(order: Order): QueryOrder {
  return {
    orderId: order.orderId,
    orderDate: order.orderDate,
    orderTime: Date.parse(order.orderDate),
    value: order.value,
    currency: order.currency,
    sourceName: order.sourceName,
    tags: order.tags,
    paymentGateway: order.paymentGateway,
    financialStatus: order.financialStatus,
    refunds: order.refunds.map((refund) => ({ amount: refund.amount, processedAt: new Date(refund.processedAt).toISOString() })),
    customer: { userIds: order.customer.userIds, emailHashes: order.customer.emailHashes, phoneHashes: order.customer.phoneHashes },
    // Only what costing reads.
    ...(order.items?.length ? { items: costedItems(order.items) } : {}),
    ...(order.shippingCost === undefined ? {} : { shippingCost: order.shippingCost }),
  };
}

/** What a query reads of an order: its lists as JSON text, which the engine's conversion of list values makes several times dearer. */
const factSelect = (parts: FactParts) => `order_id, epoch_ms(order_date) AS order_ms, value, currency, source_name, CAST(to_json(tags) AS VARCHAR) AS tags,
  payment_gateway, financial_status, refunds
  ${parts.customers ? `, CAST(to_json(user_ids) AS VARCHAR) AS user_ids, CAST(to_json(email_hashes) AS VARCHAR) AS email_hashes, CAST(to_json(phone_hashes) AS VARCHAR) AS phone_hashes` : ''}
  ${parts.costs ? ', items, shipping_cost' : ''}`;

/** Which parts of an order a read builds: items and shipping cost for costing, identifiers for who is new. */
export interface FactParts {
  costs: boolean;
  customers: boolean;
}

const ALL_PARTS: FactParts = { costs: true, customers: true };

const jsonList = (text: unknown): string[] => (text === '[]' || text === null || text === undefined ? [] : (JSON.parse(text as string) as string[]));

function factOfRow(row: Record<string, unknown>, parts: FactParts): QueryOrder {
  const orderTime = Number(row.order_ms);
  const fact: QueryOrder = {
    orderId: row.order_id as string,
    orderDate: new Date(orderTime).toISOString(),
    orderTime,
    value: row.value as number | null,
    currency: row.currency as string | null,
    sourceName: row.source_name as string | null,
    tags: jsonList(row.tags),
    paymentGateway: row.payment_gateway as string | null,
    financialStatus: row.financial_status as QueryOrder['financialStatus'],
    refunds: row.refunds === '[]' ? [] : (JSON.parse(row.refunds as string) as QueryOrder['refunds']).map(({ amount, processedAt }) => ({ amount, processedAt })),
    customer: parts.customers ? { userIds: jsonList(row.user_ids), emailHashes: jsonList(row.email_hashes), phoneHashes: jsonList(row.phone_hashes) } : { userIds: [], emailHashes: [], phoneHashes: [] },
  };
  if (parts.costs) {
    const items = row.items === null ? [] : (JSON.parse(row.items as string) as NonNullable<Order['items']>);
    if (items.length > 0) fact.items = costedItems(items);
    if (row.shipping_cost !== null) fact.shippingCost = row.shipping_cost as number;
  }
  return fact;
}

/**
 * What the query, cohort and attribution reads need of [from, to): the orders placed in it and,
 * with `refunded`, the orders with a refund processed in it; of each, only the parts asked for.
 */
export async function readOrderFacts(
  pixelId: string,
  from: number,
  to: number,
  options: { refunded: boolean } & Partial<FactParts>,
): Promise<{ placed: QueryOrder[]; refunded: QueryOrder[] }> {
  const parts: FactParts = { costs: options.costs ?? true, customers: options.customers ?? true };
  return withDuckDB(async (connection) => {
    await registerOrders(connection, pixelId);
    const placedWhere = `order_date >= make_timestamp($from * 1000) AND order_date < make_timestamp($to * 1000)`;
    const refundedWhere = `last_refund_at >= make_timestamp($from * 1000) AND first_refund_at < make_timestamp($to * 1000)`;
    const result = await connection.runAndReadAll(
      `SELECT ${factSelect(parts)}, (${placedWhere}) AS placed FROM orders
       WHERE (${placedWhere}) ${options.refunded ? `OR (${refundedWhere})` : ''} ORDER BY order_date, order_id`,
      { from, to },
    );
    const placed: QueryOrder[] = [];
    const refunded: QueryOrder[] = [];
    const [start, end] = [new Date(from).toISOString(), new Date(to).toISOString()];
    for (const row of rowObjects(result)) {
      const order = factOfRow(row, parts);
      if (row.placed === true) placed.push(order);
      if (options.refunded && order.refunds.some((refund) => refund.processedAt >= start && refund.processedAt < end)) refunded.push(order);
    }
    return { placed, refunded };
  });
}

/**
 * Every stored order of the customers of `orders`: the orders themselves and every order sharing
 * a user id, email hash or phone hash with them, transitively (a recursive walk of the
 * identifier-order links, which ends when no new identifier appears).
 */
export async function readCustomerHistory(pixelId: string, orders: readonly QueryOrder[]): Promise<QueryOrder[]> {
  if (orders.length === 0) return [];
  return withDuckDB(async (connection) => {
    await registerOrders(connection, pixelId);
    const result = await connection.runAndReadAll(
      `WITH RECURSIVE
         links AS (SELECT order_id, unnest(${IDENTITY_KEYS_SQL}) AS key FROM orders),
         reached(key) AS (
           SELECT unnest(from_json($keys, '["VARCHAR"]'))
           UNION
           SELECT other.key FROM reached JOIN links AS mine ON mine.key = reached.key JOIN links AS other ON other.order_id = mine.order_id)
       SELECT ${factSelect(ALL_PARTS)} FROM orders
       WHERE order_id IN (SELECT order_id FROM links JOIN reached USING (key)) OR order_id IN (SELECT unnest(from_json($ids, '["VARCHAR"]')))
       ORDER BY order_date, order_id`,
      { keys: JSON.stringify([...new Set(orders.flatMap((order) => identityKeys(order.customer)))]), ids: JSON.stringify(orders.map((order) => order.orderId)) },
    );
    return rowObjects(result).map((row) => factOfRow(row, ALL_PARTS));
  });
}

/** An order's customer identifiers as identity-components.ts `identityKeys` writes them. */
const IDENTITY_KEYS_SQL = `list_concat(
  list_transform(user_ids, id -> 'u:' || id),
  list_transform(email_hashes, hash -> 'e:' || hash),
  list_transform(phone_hashes, hash -> 'p:' || hash))`;

/**
 * Every order placed in [from, to) with its revision, and the deletions of orders whose last
 * live version was placed in the range, for replaying orders through read models.
 */
export async function readVersionedOrders(pixelId: string, from: Date, to: Date): Promise<{ orders: VersionedOrder[]; deleted: DeletedOrder[] }> {
  return withDuckDB(async (connection) => {
    await registerOrderVersions(connection, pixelId);
    const result = await connection.runAndReadAll(
      `SELECT ${ORDER_SELECT}, revision, deleted FROM (${CURRENT_ORDERS_SQL('order_versions')})
       WHERE deleted OR (order_date >= make_timestamp($from * 1000) AND order_date < make_timestamp($to * 1000)) ORDER BY order_date, order_id`,
      { from: from.getTime(), to: to.getTime() },
    );
    const orders: VersionedOrder[] = [];
    const deleted: DeletedOrder[] = [];
    for (const row of rowObjects(result)) {
      if (row.deleted === true) deleted.push({ orderId: row.order_id as string, version: Number(row.revision) });
      else orders.push({ order: orderOfRow(row), version: Number(row.revision) });
    }
    return { orders, deleted };
  });
}

export type { FieldTimes };
