import type { DeletedOrder, VersionedOrder } from './order-repository';
import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { identityKeys } from '../analytics/identity-components';
import type { QueryEvent, QueryOrder } from '../analytics/query-data';
import { mapWithConcurrency } from '../map-with-concurrency';
import type { Order } from '../orders/order';
import type { StoredEvent } from '../tracking/stored-event';
import { batchGet, type ItemKey } from './batch-get';
import { batchWrite, type WriteRequest } from './batch-write';
import { documentClient, tableName } from './dynamo-client';

/**
 * The read models of POST /db-mgmt/api/query, kept by projectors from the order and event stores.
 *
 * Items (see table-design.ts), each a map of per-order or per-event entries packed in one item:
 * - orders by UTC order day     `PIXEL#<p>#QO#<YYYY-MM-DD>#<shard>` / `FACTS`  { o: { <orderId>: { v, f? } } }
 * - orders by UTC refund day    `PIXEL#<p>#QR#<YYYY-MM-DD>#<shard>` / `FACTS`  same map, an order under each day it had a refund
 * - orders by customer identity `PIXEL#<p>#QC#<u:|e:|p:><id>`        / `FACTS`  same map, an order under each of its identifiers
 * - projection pointer          `PIXEL#<p>#QP#<orderId>`              / `POINTER` { v, keys }: where the order was last projected
 * - events by UTC day           `PIXEL#<p>#QE#<YYYY-MM-DD>#<shard>` / `FACTS`  { e: { <eventId>: JSON fact } }
 * - event counts by UTC day     `PIXEL#<p>#QEH#<YYYY-MM-DD>`         / `ROLLUP` { n, c }: the day's events counted
 *                               by UTC hour, name and UTM source/medium/campaign, summarising `n` facts
 *
 * Per-order facts (never pre-summed totals), because each query's orderSettings decide which
 * orders count. A query reads the day items its range touches (4 shards a day, by BatchGetItem)
 * and the identity items of the customers it meets, never another pixel's or day's items.
 *
 * Exactness without transactions:
 * - An order entry carries the order store's `version`; a write applies only when the stored
 *   entry's version is not newer (`v <= :v`), so duplicates and retries rewrite the same entry
 *   and a late, older delivery changes nothing.
 * - An order whose date (or refunds) moved leaves a tombstone `{ v }` in the items it left, found
 *   through its pointer; the pointer is written last, so a crash before it is repaired by the retry.
 * - Events never change once stored (the event store keeps the first delivery), so an entry keyed
 *   by event id is written with a plain SET: a duplicate rewrites the same entry.
 * - A day's rollup is recomputed from the day's fact items after every write to them, and written
 *   only over a rollup of no more facts (`n <= :n`): facts only grow, so the rollup that survives
 *   summarises the largest set read, which holds every event written before the last recompute.
 */
export const QUERY_SHARDS = 4;
const FACTS_SK = 'FACTS';
const POINTER_SK = 'POINTER';
const WRITE_CONCURRENCY = 8;
const READ_CONCURRENCY = 8;
/** Entries set per UpdateItem: keeps the expression under DynamoDB's 4 KB expression limit. */
const ENTRIES_PER_UPDATE = 40;

export function querySharding(id: string): number {
  return (createHash('sha256').update(id, 'utf8').digest()[0] as number) % QUERY_SHARDS;
}

const orderDayKey = (pixelId: string, day: string, shard: number): ItemKey => ({ PK: `PIXEL#${pixelId}#QO#${day}#${shard}`, SK: FACTS_SK });
const refundDayKey = (pixelId: string, day: string, shard: number): ItemKey => ({ PK: `PIXEL#${pixelId}#QR#${day}#${shard}`, SK: FACTS_SK });
const identityKey = (pixelId: string, identity: string): ItemKey => ({ PK: `PIXEL#${pixelId}#QC#${identity}`, SK: FACTS_SK });
const pointerKey = (pixelId: string, orderId: string): ItemKey => ({ PK: `PIXEL#${pixelId}#QP#${orderId}`, SK: POINTER_SK });
const eventDayKey = (pixelId: string, day: string, shard: number): ItemKey => ({ PK: `PIXEL#${pixelId}#QE#${day}#${shard}`, SK: FACTS_SK });
const eventRollupKey = (pixelId: string, day: string): ItemKey => ({ PK: `PIXEL#${pixelId}#QEH#${day}`, SK: 'ROLLUP' });

export type { VersionedOrder };

interface OrderEntry {
  v: number;
  /** JSON of the QueryOrder; absent in a tombstone. */
  f?: string;
}

export function toQueryOrder(order: Order): QueryOrder {
  return {
    orderId: order.orderId,
    orderDate: order.orderDate,
    value: order.value,
    currency: order.currency,
    sourceName: order.sourceName,
    tags: order.tags,
    paymentGateway: order.paymentGateway,
    financialStatus: order.financialStatus,
    refunds: order.refunds.map((refund) => ({ amount: refund.amount, processedAt: new Date(refund.processedAt).toISOString() })),
    customer: { userIds: order.customer.userIds, emailHashes: order.customer.emailHashes, phoneHashes: order.customer.phoneHashes },
  };
}

/** Every item an order's facts belong in. */
function orderItemKeys(pixelId: string, order: QueryOrder): ItemKey[] {
  const shard = querySharding(order.orderId);
  const refundDays = new Set(order.refunds.map((refund) => refund.processedAt.slice(0, 10)));
  return [
    orderDayKey(pixelId, order.orderDate.slice(0, 10), shard),
    ...[...refundDays].map((day) => refundDayKey(pixelId, day, shard)),
    ...identityKeys(order.customer).map((identity) => identityKey(pixelId, identity)),
  ];
}

const keyId = (key: ItemKey) => `${key.PK}\n${key.SK}`;

/**
 * Projector for the order store: brings the order read models up to the given order states.
 * Exact under duplicates, retries, reordering (an older version is ignored) and crashes between
 * writes (the retry completes them). Orders are independent; one order's writes run in sequence.
 */
export async function applyOrders(pixelId: string, orders: readonly VersionedOrder[], deleted: readonly DeletedOrder[] = []): Promise<void> {
  const latest = new Map<string, { orderId: string; version: number; order?: Order }>();
  const offer = (entry: { orderId: string; version: number; order?: Order }) => {
    const known = latest.get(entry.orderId);
    if (!known || known.version <= entry.version) latest.set(entry.orderId, entry);
  };
  for (const { order, version } of orders) offer({ orderId: order.orderId, version, order });
  for (const { orderId, version } of deleted) offer({ orderId, version });
  await mapWithConcurrency([...latest.values()], WRITE_CONCURRENCY, (entry) => applyOrder(pixelId, entry));
}

/** Brings one order's entries to a state of it; without `order`, the order was deleted and every entry becomes a tombstone. */
async function applyOrder(pixelId: string, { orderId, version, order }: { orderId: string; version: number; order?: Order }): Promise<void> {
  const { Item: pointer } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: pointerKey(pixelId, orderId), ConsistentRead: true }));
  if (pointer && (pointer.v as number) > version) return;
  const fact = order && toQueryOrder(order);
  const keys = fact ? orderItemKeys(pixelId, fact) : [];
  const current = new Set(keys.map(keyId));
  if (fact) {
    const entry: OrderEntry = { v: version, f: JSON.stringify(fact) };
    for (const key of keys) await setOrderEntry(key, orderId, entry);
  }
  for (const left of ((pointer?.keys as string[] | undefined) ?? []).filter((id) => !current.has(id))) {
    const [PK, SK] = left.split('\n') as [string, string];
    await setOrderEntry({ PK, SK }, orderId, { v: version });
  }
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...pointerKey(pixelId, orderId), v: version, keys: [...current] },
        ConditionExpression: 'attribute_not_exists(PK) OR v <= :v',
        ExpressionAttributeValues: { ':v': version },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/** Sets one order's entry in a packed item, unless the item holds a newer version of it. */
async function setOrderEntry(key: ItemKey, orderId: string, entry: OrderEntry): Promise<void> {
  const update = () =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET o.#id = :entry',
        ConditionExpression: 'attribute_exists(o) AND (attribute_not_exists(o.#id) OR o.#id.v <= :v)',
        ExpressionAttributeNames: { '#id': orderId },
        ExpressionAttributeValues: { ':entry': entry, ':v': entry.v },
      }),
    );
  try {
    await update();
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // Either the entry is newer (nothing to do) or the item does not exist yet: create it empty,
    // whoever wins that race, and try once more.
    await ensureItem(key, 'o');
    try {
      await update();
    } catch (again) {
      if (!isConditionFailure(again)) throw again;
    }
  }
}

async function ensureItem(key: ItemKey, map: 'o' | 'e'): Promise<void> {
  try {
    await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...key, [map]: {} }, ConditionExpression: 'attribute_not_exists(PK)' }));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error as Error)?.name === 'ConditionalCheckFailedException';
}

/** The compact form an event is kept in: [ms since its UTC day, name, utm_source, utm_medium, utm_campaign, identities]. */
type EventEntry = [number, string, string | null, string | null, string | null, string[]];

const DAY_MS = 86_400_000;

function eventEntry(event: StoredEvent): { day: string; entry: EventEntry } {
  const at = Date.parse(event.timestamp);
  const identities = identityKeys({ ...event.user, fbp: event.click?.fbp ? [event.click.fbp] : [] });
  return {
    day: event.timestamp.slice(0, 10),
    entry: [at % DAY_MS, event.name, event.utm?.utm_source ?? null, event.utm?.utm_medium ?? null, event.utm?.utm_campaign ?? null, identities],
  };
}

/** Projector for the event store: adds stored events to the per-day event facts (idempotent). */
export async function applyEvents(pixelId: string, events: readonly StoredEvent[]): Promise<void> {
  const byItem = new Map<string, { key: ItemKey; entries: Array<[string, EventEntry]> }>();
  for (const event of events) {
    const { day, entry } = eventEntry(event);
    const key = eventDayKey(pixelId, day, querySharding(event.eventId));
    const group = byItem.get(key.PK) ?? { key, entries: [] };
    group.entries.push([event.eventId, entry]);
    byItem.set(key.PK, group);
  }
  const updates = [...byItem.values()].flatMap(({ key, entries }) => {
    const chunks: Array<{ key: ItemKey; entries: Array<[string, EventEntry]> }> = [];
    for (let i = 0; i < entries.length; i += ENTRIES_PER_UPDATE) chunks.push({ key, entries: entries.slice(i, i + ENTRIES_PER_UPDATE) });
    return chunks;
  });
  const days = new Set(events.map((event) => event.timestamp.slice(0, 10)));
  await mapWithConcurrency(updates, WRITE_CONCURRENCY, async ({ key, entries }) => {
    const names: Record<string, string> = {};
    const values: Record<string, string> = {};
    const sets = entries.map(([eventId, entry], i) => {
      names[`#k${i}`] = eventId;
      values[`:v${i}`] = JSON.stringify(entry);
      return `e.#k${i} = :v${i}`;
    });
    const update = () =>
      documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: 'attribute_exists(e)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    try {
      await update();
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      await ensureItem(key, 'e');
      await update();
    }
  });
  await mapWithConcurrency([...days], WRITE_CONCURRENCY, (day) => recomputeEventRollup(pixelId, day));
}

/** A day's counts by UTC hour, name and UTM values: key `JSON [hour, name, source, medium, campaign]`, value count. */
function rollupOf(entries: Iterable<EventEntry>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [offset, name, source, medium, campaign] of entries) {
    const key = JSON.stringify([Math.floor(offset / 3_600_000), name, source, medium, campaign]);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  // Keys in a fixed order, so the same facts always give the same item, whatever order they came in.
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Takes back the facts of event deliveries that lost to an earlier delivery of their eventId
 * (possibly on another day), then recomputes those days' rollups. The winner's facts are written
 * after this by `applyEvents`, so a winner on the same day is put back.
 */
export async function retractEvents(pixelId: string, retracted: ReadonlyArray<{ eventId: string; day: string }>): Promise<void> {
  if (retracted.length === 0) return;
  await mapWithConcurrency(retracted, WRITE_CONCURRENCY, async ({ eventId, day }) => {
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: eventDayKey(pixelId, day, querySharding(eventId)),
          UpdateExpression: 'REMOVE e.#k',
          ConditionExpression: 'attribute_exists(e)',
          ExpressionAttributeNames: { '#k': eventId },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  });
  // A pixel's entries are projected one batch at a time, so a rollup of fewer facts may replace one of more here.
  const days = new Set(retracted.map(({ day }) => day));
  await mapWithConcurrency([...days], WRITE_CONCURRENCY, (day) => recomputeEventRollup(pixelId, day, { shrinks: true }));
}

async function recomputeEventRollup(pixelId: string, day: string, options: { shrinks?: boolean } = {}): Promise<void> {
  const items = await batchGet(Array.from({ length: QUERY_SHARDS }, (_, shard) => eventDayKey(pixelId, day, shard)));
  const entries = items.flatMap((item) => Object.values((item.e ?? {}) as Record<string, string>).map((text) => JSON.parse(text) as EventEntry));
  if (options.shrinks && entries.length === 0) {
    // Every fact of the day was taken back: the day has no rollup, as if it had never had events.
    await documentClient.send(new DeleteCommand({ TableName: tableName(), Key: eventRollupKey(pixelId, day) }));
    return;
  }
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...eventRollupKey(pixelId, day), n: entries.length, c: JSON.stringify(rollupOf(entries)) },
        ...(options.shrinks ? {} : { ConditionExpression: 'attribute_not_exists(PK) OR n <= :n', ExpressionAttributeValues: { ':n': entries.length } }),
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Writes the read models of a pixel that has none yet, from whole order and event sets, with
 * batched puts of the same items the projectors keep (demo data and benchmark datasets). Not for
 * a pixel with read-model items already: it replaces items rather than merging entries.
 */
export async function writeInitialReadModels(pixelId: string, orders: readonly VersionedOrder[], events: readonly StoredEvent[]): Promise<void> {
  const items = new Map<string, { key: ItemKey; map: 'o' | 'e'; entries: Record<string, unknown> }>();
  const add = (key: ItemKey, map: 'o' | 'e', id: string, entry: unknown) => {
    const item = items.get(keyId(key)) ?? { key, map, entries: {} };
    item.entries[id] = entry;
    items.set(keyId(key), item);
  };
  const pointers: WriteRequest[] = [];
  for (const { order, version } of orders) {
    const fact = toQueryOrder(order);
    const keys = orderItemKeys(pixelId, fact);
    const entry: OrderEntry = { v: version, f: JSON.stringify(fact) };
    for (const key of keys) add(key, 'o', order.orderId, entry);
    pointers.push({ PutRequest: { Item: { ...pointerKey(pixelId, order.orderId), v: version, keys: keys.map(keyId) } } });
  }
  const byDay = new Map<string, EventEntry[]>();
  for (const event of events) {
    const { day, entry } = eventEntry(event);
    add(eventDayKey(pixelId, day, querySharding(event.eventId)), 'e', event.eventId, JSON.stringify(entry));
    const dayEntries = byDay.get(day);
    if (dayEntries) dayEntries.push(entry);
    else byDay.set(day, [entry]);
  }
  const puts: WriteRequest[] = [...items.values()].map(({ key, map, entries }) => ({ PutRequest: { Item: { ...key, [map]: entries } } }));
  const rollups: WriteRequest[] = [...byDay].map(([day, entries]) => ({
    PutRequest: { Item: { ...eventRollupKey(pixelId, day), n: entries.length, c: JSON.stringify(rollupOf(entries)) } },
  }));
  await batchWrite([...puts, ...pointers, ...rollups], { concurrency: WRITE_CONCURRENCY });
}

/** The UTC days an instant range touches. */
function utcDays(from: number, to: number): string[] {
  const days: string[] = [];
  for (let day = Math.floor(from / DAY_MS) * DAY_MS; day < to; day += DAY_MS) days.push(new Date(day).toISOString().slice(0, 10));
  return days;
}

function liveOrders(items: ReadonlyArray<Record<string, unknown>>): Map<string, { v: number; order: QueryOrder }> {
  const orders = new Map<string, { v: number; order: QueryOrder }>();
  for (const item of items) {
    for (const [orderId, entry] of Object.entries((item.o ?? {}) as Record<string, OrderEntry>)) {
      const known = orders.get(orderId);
      if (known && known.v >= entry.v) continue;
      if (entry.f === undefined) orders.delete(orderId);
      else orders.set(orderId, { v: entry.v, order: JSON.parse(entry.f) as QueryOrder });
    }
  }
  return orders;
}

/** Orders placed in [from, to): the order-day items of the range's UTC days, read in parallel. */
export async function readOrdersPlaced(pixelId: string, from: number, to: number): Promise<QueryOrder[]> {
  const keys = utcDays(from, to).flatMap((day) => Array.from({ length: QUERY_SHARDS }, (_, shard) => orderDayKey(pixelId, day, shard)));
  const orders = liveOrders(await batchGet(keys, { concurrency: READ_CONCURRENCY }));
  return [...orders.values()]
    .map(({ order }) => order)
    .filter((order) => {
      const at = Date.parse(order.orderDate);
      return at >= from && at < to;
    });
}

/** Orders with a refund processed in [from, to). */
export async function readOrdersRefunded(pixelId: string, from: number, to: number): Promise<QueryOrder[]> {
  const keys = utcDays(from, to).flatMap((day) => Array.from({ length: QUERY_SHARDS }, (_, shard) => refundDayKey(pixelId, day, shard)));
  const orders = liveOrders(await batchGet(keys, { concurrency: READ_CONCURRENCY }));
  return [...orders.values()]
    .map(({ order }) => order)
    .filter((order) => order.refunds.some((refund) => {
      const at = Date.parse(refund.processedAt);
      return at >= from && at < to;
    }));
}

/** How many identity rounds a customer closure may take before it is cut (a chain of linked identifiers). */
const MAX_IDENTITY_ROUNDS = 20;

/**
 * Every stored order of the customers of `orders`: the identity items of their identifiers, then
 * of the identifiers those orders bring, until no new identifier appears. Reads only the
 * customers met, so the cost follows the range, not the pixel's history.
 */
export async function readCustomerHistory(pixelId: string, orders: readonly QueryOrder[]): Promise<QueryOrder[]> {
  const found = new Map<string, { v: number; order: QueryOrder }>();
  for (const order of orders) found.set(order.orderId, { v: -1, order });
  const fetched = new Set<string>();
  let pending = [...new Set(orders.flatMap((order) => identityKeys(order.customer)))];
  for (let round = 0; pending.length > 0 && round < MAX_IDENTITY_ROUNDS; round++) {
    for (const identity of pending) fetched.add(identity);
    const items = await batchGet(pending.map((identity) => identityKey(pixelId, identity)), { concurrency: READ_CONCURRENCY });
    for (const [orderId, entry] of liveOrders(items)) {
      const known = found.get(orderId);
      if (!known || known.v < entry.v) found.set(orderId, entry);
    }
    pending = [...new Set([...found.values()].flatMap(({ order }) => identityKeys(order.customer)))].filter((identity) => !fetched.has(identity));
  }
  return [...found.values()].map(({ order }) => order);
}

/** Events that happened in [from, to). */
export async function readEventFacts(pixelId: string, from: number, to: number): Promise<QueryEvent[]> {
  const days = utcDays(from, to);
  const keys = days.flatMap((day) => Array.from({ length: QUERY_SHARDS }, (_, shard) => eventDayKey(pixelId, day, shard)));
  const items = await batchGet(keys, { concurrency: READ_CONCURRENCY });
  const events: QueryEvent[] = [];
  for (const item of items) {
    const dayStart = Date.parse(`${(item.PK as string).split('#QE#')[1]!.slice(0, 10)}T00:00:00Z`);
    for (const [eventId, text] of Object.entries((item.e ?? {}) as Record<string, string>)) {
      const [offset, name, utmSource, utmMedium, utmCampaign, identities] = JSON.parse(text) as EventEntry;
      const at = dayStart + offset;
      if (at >= from && at < to) events.push({ eventId, at, name, utmSource, utmMedium, utmCampaign, identities });
    }
  }
  return events;
}

/**
 * Event counts in [from, to), from the hourly rollups: one row per UTC hour, name and UTM values,
 * with its count and no identities. Exact for a range on whole UTC hours.
 */
export async function readEventCounts(pixelId: string, from: number, to: number): Promise<QueryEvent[]> {
  const items = await batchGet(utcDays(from, to).map((day) => eventRollupKey(pixelId, day)), { concurrency: READ_CONCURRENCY });
  const rows: QueryEvent[] = [];
  for (const item of items) {
    const dayStart = Date.parse(`${(item.PK as string).split('#QEH#')[1]}T00:00:00Z`);
    for (const [key, count] of Object.entries(JSON.parse(item.c as string) as Record<string, number>)) {
      const [hour, name, utmSource, utmMedium, utmCampaign] = JSON.parse(key) as [number, string, string | null, string | null, string | null];
      const at = dayStart + hour * 3_600_000;
      if (at >= from && at < to) rows.push({ eventId: key, at, name, utmSource, utmMedium, utmCampaign, identities: [], count });
    }
  }
  return rows;
}
