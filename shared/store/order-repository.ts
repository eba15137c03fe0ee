import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { RetryableFault } from '../faults';
import { mapWithConcurrency } from '../map-with-concurrency';
import { mergeOrder, type FieldTimes, type OrderState } from '../orders/merge-order';
import { orderSchema, type Order, type OrderUpdate } from '../orders/order';
import { batchGet, type ItemKey } from './batch-get';
import { batchWrite } from './batch-write';
import { documentClient, tableName } from './dynamo-client';
import { queryAll } from './query-all';

/**
 * Orders of a pixel, from purchase events and the order import.
 *
 * Items (see table-design.ts):
 * - order `PK=PIXEL#<pixelId>#ORDER#<orderId>`  `SK=ORDER`
 *         `GSI1PK=PIXEL#<pixelId>#ORDERS#<YYYY-MM>`  `GSI1SK=<orderDate>#<orderId>`
 *         { ...Order as attributes, fieldTimes, version }
 *
 * By id for upserts (one partition per order, so a busy shop's writes spread); by order month
 * and date on GSI1 for the revenue queries, which read a date range month by month.
 *
 * No transactions: each order is a read-merge-write guarded by its `version`. A write that loses
 * a race re-reads and merges again; the merge is idempotent, so a retried request never applies
 * anything twice.
 */
const ORDER_SK = 'ORDER';
const MAX_ATTEMPTS = 6;
const WRITE_CONCURRENCY = 8;
const READ_CONCURRENCY = 4;

const orderKey = (pixelId: string, orderId: string): ItemKey => ({ PK: `PIXEL#${pixelId}#ORDER#${orderId}`, SK: ORDER_SK });
export const ordersByMonthKey = (pixelId: string, month: string) => `PIXEL#${pixelId}#ORDERS#${month}`;

export interface UpsertOrdersResult {
  created: number;
  updated: number;
  /** Orders the updates left as they were (a retry, or a source older than what is stored). */
  unchanged: number;
  /**
   * Every order the updates touched, as stored now with its version, unchanged ones included: a
   * projection that crashed after the order was written is completed by the retry.
   */
  orders: Array<{ order: Order; version: number }>;
}

/**
 * Applies updates to their orders, creating the ones not stored yet. Updates of one order are
 * merged together, then written once.
 */
export async function upsertOrders(pixelId: string, updates: readonly OrderUpdate[], options: { now?: Date } = {}): Promise<UpsertOrdersResult> {
  const result: UpsertOrdersResult = { created: 0, updated: 0, unchanged: 0, orders: [] };
  if (updates.length === 0) return result;
  const now = options.now ?? new Date();
  const byOrder = new Map<string, OrderUpdate[]>();
  for (const update of updates) byOrder.set(update.orderId, [...(byOrder.get(update.orderId) ?? []), update]);

  const stored = new Map(
    (await batchGet([...byOrder.keys()].map((orderId) => orderKey(pixelId, orderId)), { concurrency: READ_CONCURRENCY })).map((item) => [
      item.orderId as string,
      item,
    ]),
  );
  const outcomes = await mapWithConcurrency([...byOrder], WRITE_CONCURRENCY, ([orderId, orderUpdates]) =>
    applyUpdates(pixelId, orderId, orderUpdates, stored.get(orderId), now),
  );
  for (const { outcome, order, version } of outcomes) {
    result[outcome]++;
    result.orders.push({ order, version });
  }
  return result;
}

async function applyUpdates(
  pixelId: string,
  orderId: string,
  updates: readonly OrderUpdate[],
  firstRead: Record<string, unknown> | undefined,
  now: Date,
): Promise<{ outcome: 'created' | 'updated' | 'unchanged'; order: Order; version: number }> {
  let item = firstRead;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = item ? stateOf(item) : undefined;
    let next = current;
    for (const update of updates) next = mergeOrder(next, update, now);
    if (!next) throw new Error('no update to apply');
    if (current && fingerprint(current) === fingerprint(next)) return { outcome: 'unchanged', order: current.order, version: item!.version as number };
    next.order.updatedAt = now.toISOString();
    const version = current ? (item!.version as number) : 0;
    try {
      await documentClient.send(
        new PutCommand({
          TableName: tableName(),
          Item: orderItem(pixelId, next, version + 1),
          ...(current
            ? { ConditionExpression: '#version = :version', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': version } }
            : { ConditionExpression: 'attribute_not_exists(PK)' }),
        }),
      );
      return { outcome: current ? 'updated' : 'created', order: next.order, version: version + 1 };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException || (error as Error).name === 'ConditionalCheckFailedException')) throw error;
      item = await readItem(pixelId, orderId);
    }
  }
  throw new RetryableFault(`Order ${orderId} kept changing under concurrent writes`);
}

function orderItem(pixelId: string, state: OrderState, version: number): Record<string, unknown> {
  return {
    ...orderKey(pixelId, state.order.orderId),
    GSI1PK: ordersByMonthKey(pixelId, state.order.orderDate.slice(0, 7)),
    GSI1SK: `${state.order.orderDate}#${state.order.orderId}`,
    ...state.order,
    fieldTimes: state.fieldTimes,
    version,
  };
}

/**
 * Stores orders of a pixel that has none of them yet, in batches, through the same merge as
 * `upsertOrders` (demo data): an unconditional write, so never for orders that may exist.
 */
export async function writeNewOrders(pixelId: string, updates: readonly OrderUpdate[], now: Date): Promise<Array<{ order: Order; version: number }>> {
  const states = new Map<string, OrderState>();
  for (const update of updates) states.set(update.orderId, mergeOrder(states.get(update.orderId), update, now));
  await batchWrite([...states.values()].map((state) => ({ PutRequest: { Item: orderItem(pixelId, state, 1) } })), { concurrency: WRITE_CONCURRENCY });
  return [...states.values()].map((state) => ({ order: state.order, version: 1 }));
}

async function readItem(pixelId: string, orderId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: orderKey(pixelId, orderId), ConsistentRead: true }));
  return Item;
}

export async function getOrder(pixelId: string, orderId: string): Promise<Order | undefined> {
  const item = await readItem(pixelId, orderId);
  return item ? stateOf(item).order : undefined;
}

/**
 * The pixel's orders placed in `[from, to)`, oldest first: one GSI1 query per month of the range.
 * The index is eventually consistent, so an order written a moment ago may be missing.
 */
export async function readOrders(pixelId: string, from: Date, to: Date): Promise<Order[]> {
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
  return pages.flat().map((item) => stateOf(item).order);
}

function stateOf(item: Record<string, unknown>): OrderState {
  const { PK: _pk, SK: _sk, GSI1PK: _gsiPk, GSI1SK: _gsiSk, fieldTimes, version: _version, ...order } = item;
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
