import type { DeletedOrder, VersionedOrder } from './order-repository';
import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { gunzip, gzipSync } from 'node:zlib';
import { promisify } from 'node:util';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { identityKeys } from '../analytics/identity-components';
import type { CustomerDigest, DigestOrder, QueryOrder } from '../analytics/query-data';
import { customerDigests, customerKeys } from '../orders/counting-rules';
import { settleAll } from '../settle-all';
import { mapWithConcurrency } from '../map-with-concurrency';
import type { Order } from '../orders/order';
import { batchGet, type ItemKey } from './batch-get';
import { batchWrite, type WriteRequest } from './batch-write';
import { documentClient, tableName } from './dynamo-client';
import { parseInstant } from '../time/iso-8601';
import { unlessRefused } from './condition-failure';
import { putEachUnlessRefused } from './conditional-puts';

/**
 * The order read models of POST /db-mgmt/api/query, kept by a projector from the order store.
 *
 * Items (see table-design.ts), each a map of per-order entries packed in one item:
 * - orders by UTC day          `PIXEL#<p>#QO#<YYYY-MM-DD>#<0-7>` / `FACTS`  { o: { <orderId>: { v, f? } }, r: { same } }:
 *                               `o` the orders placed that day, `r` the orders with a refund processed that day; `f` the
 *                               order fact with its customer digest (`encodeFact`)
 *                               and / `PACKED` { p, q, lp, lq, want, done }: the live entries of `o` and `r` packed
 *                               (`packEntries`), whole in `p`/`q` and lean in `lp`/`lq` (`leanFact`: without the
 *                               customer identifiers a usable digest makes unneeded); current when `done` equals `want`
 * - orders by UTC day, columnar `PIXEL#<p>#QD#<YYYY-MM-DD>`          / `COLS` { c, d, ci, di, want, done }: the day's 8 items'
 *                               live `o` and `r` entries merged, lean, as columns (`dayCopyAttributes`); what the
 *                               order reads read, one item a day
 * - orders by customer identity `PIXEL#<p>#QC#<u:|e:|p:><id>`        / `FACTS` { o, np? } and pages `FACTS#1`, `FACTS#2`…
 *                               { o }: the same map without digests, an order under each of its identifiers: how the
 *                               projector (and a query, for an order without a digest) finds a customer's orders. New
 *                               entries go to the last of the items until it holds `IDENTITY_PAGE_BYTES`, then to a new
 *                               page (`np` on the head counts them), so an identifier holds any number of orders and is
 *                               read with one BatchGetItem of heads (and one of the pages of the few that have some).
 *                               An order's state under an identifier is its newest entry in any of the items
 * - projection pointer          `PIXEL#<p>#QP#<orderId>`              / `POINTER` { v, keys }: where the order was last projected
 *
 * Per-order facts (never pre-summed totals), because each query's orderSettings decide which
 * orders count. Who is new depends on them too, so a day entry carries its customer's digest:
 * the customer's earliest order id and the counting fields of every earlier order of the customer
 * (up to MAX_DIGEST_ORDERS), from which a query decides "first counted order" under any settings
 * without reading anything else. A query reads the day copies of the UTC days its range touches
 * (one a day, by BatchGetItem; a day whose copy is behind from its 8 shards' packed copies), never
 * another pixel's or day's items.
 *
 * Exactness without transactions:
 * - An order entry carries the order store's `version`; a write applies only when the stored
 *   entry's version is not newer (`v <= :v`), so duplicates and retries rewrite the same entry
 *   and a late, older delivery changes nothing. A deleted order's entries become tombstones `{ v }`
 *   at the deletion's version.
 * - An order whose date (or refunds, or identifiers) moved leaves a tombstone `{ v }` in the items
 *   it left, found through its pointer.
 * - Digests are a function of the identity items: after the identity entries of a batch's orders
 *   are written, the projector reads the customers they belong to now and belonged to before (the
 *   identifiers in the old pointers) and rewrites the day entries of every order of those customers.
 *   Pointers are written last, so a crash before them is repaired by the retry, which still sees
 *   the old identifiers. This relies on one pixel's order changes being projected one batch at a
 *   time (the pipeline's consumer does; an import or a rebuild running beside it may leave a
 *   digest stale until the customer's next change or a rebuild).
 */
/**
 * Order day items per UTC day: each holds its orders' entries (and a packed copy beside it), so 8
 * shards keep a day of about 8,500 orders (at about 370 bytes an entry; fewer when customers have
 * long histories, whose digests grow) under DynamoDB's 400 KB item size, where 2 held about 2,100.
 * A query reads the packed copies: 1,440 for a 90-day range with its comparison, measured no slower
 * than 360 before. The key is unchanged, so shards 0-1 of the 2-shard layout are still read, and an
 * order's pointer tombstones where it was when it is projected again (after an upgrade, run
 * `rebuild-read-models`: a digest refreshed into the new shard would otherwise sit beside the old).
 */
export const ORDER_SHARDS = 8;
const FACTS_SK = 'FACTS';
const PACKED_SK = 'PACKED';
const POINTER_SK = 'POINTER';
const WRITE_CONCURRENCY = 8;
const READ_CONCURRENCY = 8;
const gunzipAsync = promisify(gunzip);

export function querySharding(id: string, shards: number): number {
  return (createHash('sha256').update(id, 'utf8').digest()[0] as number) % shards;
}

const orderDayKey = (pixelId: string, day: string, shard: number): ItemKey => ({ PK: `PIXEL#${pixelId}#QO#${day}#${shard}`, SK: FACTS_SK });
/** Where an order's entry goes: an item and its map (`o` orders placed on the item's day, `r` orders refunded on it). */
type EntrySlot = ItemKey & { map?: 'o' | 'r' };
const refundSlot = (pixelId: string, day: string, shard: number): EntrySlot => ({ ...orderDayKey(pixelId, day, shard), map: 'r' });
/** An identifier's head item (page 0, which counts the pages beyond it) or one of its pages. */
const identityKey = (pixelId: string, identity: string, page = 0): ItemKey => ({ PK: `PIXEL#${pixelId}#QC#${identity}`, SK: page === 0 ? FACTS_SK : `${FACTS_SK}#${page}` });
/**
 * An identity item takes new entries until it holds this many bytes of them, then a new page opens:
 * far below DynamoDB's 400 KB, since entries already there grow in place (a new version of an
 * order) and a concurrent writer (an import beside the drain) may add to the same item.
 */
export const IDENTITY_PAGE_BYTES = 200_000;
/** An entry's share of its item's size: its key, its fact and a little for the map's framing. */
const entryBytes = (orderId: string, entry: OrderEntry) => orderId.length + (entry.f?.length ?? 0) + 16;
/** Whether an entry of `bytes` still goes to an identity item holding `filled` bytes (an empty one takes any entry). */
const fitsInIdentityItem = (filled: number, bytes: number) => filled === 0 || filled + bytes <= IDENTITY_PAGE_BYTES;
const pointerKey = (pixelId: string, orderId: string): ItemKey => ({ PK: `PIXEL#${pixelId}#QP#${orderId}`, SK: POINTER_SK });
export type { VersionedOrder };

interface OrderEntry {
  v: number;
  /** The QueryOrder, encoded by `encodeFact`; absent in a tombstone. */
  f?: string;
}

/** Orders of a customer before one order that its digest lists; beyond, the digest says "read the history". */
export const MAX_DIGEST_ORDERS = 50;

/**
 * An order fact as a JSON array, positional (a query decodes tens of thousands of them; arrays
 * parse several times faster than objects with repeated keys): [orderDate, value, currency,
 * sourceName, tags, paymentGateway, financialStatus, [[refund amount, processedAt]...], userIds,
 * emailHashes, phoneHashes, digest?] with digest [customerId, [[financialStatus, sourceName, tags,
 * value, paymentGateway]...] | null]. Identity items hold facts without a digest.
 */
export function encodeFact(order: QueryOrder, digest?: CustomerDigest): string {
  const row: unknown[] = [
    order.orderDate,
    order.value,
    order.currency,
    order.sourceName,
    order.tags,
    order.paymentGateway,
    order.financialStatus,
    order.refunds.map((refund) => [refund.amount, refund.processedAt]),
    order.customer.userIds,
    order.customer.emailHashes,
    order.customer.phoneHashes,
  ];
  // Optional trailing members, each null when absent and cut when nothing follows: the customer
  // digest, then what costing reads (items as [sku, quantity, price, cost], the shipping cost).
  const tail: unknown[] = [
    digest ? [digest.customerId, digest.earlier === null ? null : digest.earlier.map((earlier) => [earlier.financialStatus, earlier.sourceName, earlier.tags, earlier.value, earlier.paymentGateway])] : null,
    order.items ? order.items.map((item) => [item.sku ?? null, item.quantity, item.price, item.cost ?? null]) : null,
    order.shippingCost ?? null,
  ];
  while (tail.length > 0 && tail.at(-1) === null) tail.pop();
  return JSON.stringify([...row, ...tail]);
}

type EncodedFact = [
  string,
  number | null,
  string | null,
  string | null,
  string[],
  string | null,
  QueryOrder['financialStatus'],
  Array<[number, string]>,
  string[],
  string[],
  string[],
  ([string, Array<[QueryOrder['financialStatus'], string | null, string[], number | null, string | null]> | null] | null)?,
  (Array<[string | null, number, number, number | null]> | null)?,
  (number | null)?,
];

export function decodeFact(orderId: string, text: string): QueryOrder {
  // Items written before the positional encoding hold the object itself.
  if (text.startsWith('{')) return JSON.parse(text) as QueryOrder;
  return decodeRow(orderId, JSON.parse(text) as EncodedFact);
}

/** Which optional parts of a fact a reader decodes: the costing fields, the customer digest. */
export interface FactParts {
  costs: boolean;
  customers: boolean;
}

const ALL_PARTS: FactParts = { costs: true, customers: true };

function decodeRow(orderId: string, row: EncodedFact, parts: FactParts = ALL_PARTS): QueryOrder {
  // Built field by field, optional members only when present: a query decodes tens of thousands
  // of these, and spreads of conditional objects were a good part of it.
  const refunds = row[7];
  const decodedRefunds: QueryOrder['refunds'] = new Array(refunds.length);
  for (let i = 0; i < refunds.length; i++) decodedRefunds[i] = { amount: refunds[i]![0], processedAt: refunds[i]![1] };
  const order: QueryOrder = {
    orderId,
    orderDate: row[0],
    value: row[1],
    currency: row[2],
    sourceName: row[3],
    tags: row[4],
    paymentGateway: row[5],
    financialStatus: row[6],
    refunds: decodedRefunds,
    customer: { userIds: row[8], emailHashes: row[9], phoneHashes: row[10] },
  };
  if (parts.costs) {
    const items = row[12];
    if (items) order.items = items.map(([sku, quantity, price, cost]) => (sku === null ? (cost === null ? { quantity, price } : { quantity, price, cost }) : cost === null ? { sku, quantity, price } : { sku, quantity, price, cost }));
    const shippingCost = row[13];
    if (shippingCost !== undefined && shippingCost !== null) order.shippingCost = shippingCost;
  }
  const digest = parts.customers ? row[11] : undefined;
  if (digest) {
    const [customerId, earlier] = digest;
    let decodedEarlier: DigestOrder[] | null = null;
    if (earlier !== null) {
      decodedEarlier = new Array(earlier.length);
      for (let i = 0; i < earlier.length; i++) {
        const [status, source, earlierTags, earlierValue, gateway] = earlier[i]!;
        decodedEarlier[i] = { financialStatus: status, sourceName: source, tags: earlierTags, value: earlierValue, paymentGateway: gateway };
      }
    }
    order.customerDigest = { customerId, earlier: decodedEarlier };
  }
  return order;
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
    // Only what costing reads, so the facts stay small (issue P9).
    ...(order.items?.length ? { items: order.items.map(({ sku, quantity, price, cost }) => ({ ...(sku === undefined ? {} : { sku }), quantity, price, ...(cost === undefined ? {} : { cost }) })) } : {}),
    ...(order.shippingCost === undefined ? {} : { shippingCost: order.shippingCost }),
  };
}

/** The day items an order's fact (with its customer digest) belongs in: its order day and refund days. */
function orderDayKeys(pixelId: string, order: QueryOrder): EntrySlot[] {
  const shard = querySharding(order.orderId, ORDER_SHARDS);
  const refundDays = new Set(order.refunds.map((refund) => refund.processedAt.slice(0, 10)));
  return [orderDayKey(pixelId, order.orderDate.slice(0, 10), shard), ...[...refundDays].map((day) => refundSlot(pixelId, day, shard))];
}


const QC_MARK = '#QC#';
/** The identifier an identity item is keyed by. */
const identityOfPk = (pk: string): string => pk.slice(pk.indexOf(QC_MARK) + QC_MARK.length);
const identityOfKey = (id: string): string | undefined => (id.includes(QC_MARK) ? identityOfPk(id.slice(0, id.indexOf('\n'))) : undefined);

const keyId = (key: EntrySlot) => (key.map === 'r' ? `${key.PK}\n${key.SK}\nr` : `${key.PK}\n${key.SK}`);
const slotOf = (id: string): EntrySlot => {
  const [PK, SK, map] = id.split('\n') as [string, string, string | undefined];
  return map === 'r' ? { PK, SK, map } : { PK, SK };
};

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
  // 1. Identity entries and tombstones; 2. the day entries of every order of the customers these
  // orders belong (or belonged) to, with fresh digests; 3. the pointers, last: a retry after a crash
  // still finds the identifiers the orders had before, so the customers they left are redone too.
  const touched = new Map<string, Promise<ItemKey>>();
  const known = await readOrderItems(pixelId, [...latest.values()]);
  const placements = await placeIdentityEntries(pixelId, [...latest.values()], known);
  await createFreshIdentityItems(placements);
  const applied = (await mapWithConcurrency([...latest.values()], WRITE_CONCURRENCY, (entry) => applyOrder(pixelId, entry, touched, known, placements))).filter(
    (outcome): outcome is AppliedOrder => outcome !== undefined,
  );
  await refreshCustomers(
    pixelId,
    applied.flatMap(({ live }) => (live ? [live] : [])),
    applied.flatMap(({ identities }) => identities),
    touched,
  );
  await repackTouched(await Promise.all(touched.values()));
  // A pointer already as it would be written (the same state projected again) is left alone; one
  // refused holds a newer state, written by a projection that overtook this one.
  const changed = applied.filter(({ pointer }) => {
    const before = known.pointers.get(pointer.PK as string);
    return !(before && before.v === pointer.v && JSON.stringify(before.keys) === JSON.stringify(pointer.keys));
  });
  await putEachUnlessRefused(changed.map(({ pointer }) => ({ Item: pointer, ConditionExpression: 'attribute_not_exists(PK) OR v <= :v', ExpressionAttributeValues: { ':v': pointer.v } })));
}

interface AppliedOrder {
  /** The order's state, unless it was deleted. */
  live?: { v: number; order: QueryOrder };
  /** Identifiers the order has now or had as last projected: their customers' digests may change. */
  identities: string[];
  pointer: Record<string, unknown> & ItemKey & { v: number };
}

/**
 * Brings one order's identity entries to a state of it (without `order`, the order was deleted and
 * every entry becomes a tombstone) and tombstones the items it left; its day entries are written by
 * `refreshCustomers`. Undefined when a newer state was projected already.
 */
async function applyOrder(
  pixelId: string,
  { orderId, version, order }: { orderId: string; version: number; order?: Order },
  touched: Map<string, Promise<ItemKey>>,
  known: KnownOrderItems,
  placements: Map<string, IdentityPlacement[]>,
): Promise<AppliedOrder | undefined> {
  const pointer = known.pointers.get(pointerKey(pixelId, orderId).PK);
  if (pointer && (pointer.v as number) > version) return undefined;
  const fact = order && toQueryOrder(order);
  const placed = placements.get(orderId) ?? [];
  const keys: EntrySlot[] = fact ? [...orderDayKeys(pixelId, fact), ...placed.map(({ key }) => key)] : [];
  const places = new Set(keys.map(placeOf));
  const previous = (pointer?.keys as string[] | undefined) ?? [];
  // Each write is to an item of its own and none depends on another (the pointer, written last by
  // the caller, is what a retry reads), so they go out together rather than one round trip each.
  await settleAll([
    ...placed.filter(({ written }) => !written).map(({ key, entry }) => setOrderEntry(key, orderId, entry)),
    ...previous.filter((id) => !places.has(placeOf(slotOf(id)))).map((left) => setOrderEntry(slotOf(left), orderId, { v: version }, touched)),
  ]);
  return {
    ...(fact ? { live: { v: version, order: fact } } : {}),
    identities: [...new Set([...(fact ? identityKeys(fact.customer) : []), ...previous.flatMap((id) => identityOfKey(id) ?? [])])],
    pointer: { ...pointerKey(pixelId, orderId), v: version, keys: [...new Set(keys.map(keyId))] },
  };
}

/**
 * Rewrites the day entries of every stored order of the customers of `orders` and of the
 * identifiers given (read from the identity items, transitively), each with its customer's digest
 * as the stored orders make it now. Each entry keeps its order's version, so it never replaces a
 * newer state of the order.
 */
async function refreshCustomers(
  pixelId: string,
  orders: ReadonlyArray<{ v: number; order: QueryOrder }>,
  identities: readonly string[],
  touched: Map<string, Promise<ItemKey>>,
): Promise<void> {
  if (orders.length === 0 && identities.length === 0) return;
  const found = await readIdentityClosure(pixelId, orders, identities);
  const all = [...found.values()];
  const customerOf = customerKeys(all.map(({ order }) => order));
  const groups = new Map<string, QueryOrder[]>();
  for (const { order } of all) {
    const customer = customerOf.get(order.orderId)!;
    const group = groups.get(customer);
    if (group) group.push(order);
    else groups.set(customer, [order]);
  }
  // By slot: a batch's orders share a few day items, and each item takes its entries in one call.
  const bySlot = new Map<string, { slot: EntrySlot; entries: Array<{ orderId: string; entry: OrderEntry }> }>();
  for (const group of groups.values()) {
    for (const [orderId, digest] of customerDigests(group, MAX_DIGEST_ORDERS)) {
      const { v, order } = found.get(orderId)!;
      const entry: OrderEntry = { v, f: encodeFact(order, digest) };
      for (const slot of orderDayKeys(pixelId, order)) {
        const id = keyId(slot);
        const held = bySlot.get(id) ?? { slot, entries: [] };
        held.entries.push({ orderId, entry });
        bySlot.set(id, held);
      }
    }
  }
  const chunks = [...bySlot.values()].flatMap(({ slot, entries }) =>
    Array.from({ length: Math.ceil(entries.length / ENTRIES_PER_UPDATE) }, (_, i) => ({ slot, entries: entries.slice(i * ENTRIES_PER_UPDATE, (i + 1) * ENTRIES_PER_UPDATE) })),
  );
  await mapWithConcurrency(chunks, WRITE_CONCURRENCY, ({ slot, entries }) => setOrderEntries(slot, entries, touched));
}

/**
 * Order entries one UpdateItem sets in a day item (`setOrderEntries`): its expressions stay far
 * below DynamoDB's 4 KB, and the item's entries are each a few hundred bytes.
 */
const ENTRIES_PER_UPDATE = 25;

/**
 * Sets orders' entries in one packed item, each unless the item holds a newer version of it: one
 * UpdateItem for all, on every entry's condition; when that is refused, once more after creating
 * the item's maps where missing, then entry by entry.
 */
async function setOrderEntries(slot: EntrySlot, entries: ReadonlyArray<{ orderId: string; entry: OrderEntry }>, touched?: Map<string, Promise<ItemKey>>): Promise<void> {
  const key: ItemKey = { PK: slot.PK, SK: slot.SK };
  if (touched) await markedBehind(key, touched);
  const names: Record<string, string> = { '#m': slot.map ?? 'o' };
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  const conditions = ['attribute_exists(#m)'];
  entries.forEach(({ orderId, entry }, i) => {
    names[`#i${i}`] = orderId;
    values[`:e${i}`] = entry;
    values[`:v${i}`] = entry.v;
    sets.push(`#m.#i${i} = :e${i}`);
    conditions.push(`(attribute_not_exists(#m.#i${i}) OR #m.#i${i}.v <= :v${i})`);
  });
  const update = () =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  if (await unlessRefused(update)) return;
  // Either the item (or its map) does not exist yet, mostly a day's first entries: create it
  // empty, whoever wins that race, and try once more; or an entry is newer: then, of several,
  // each of the others is set on its own (a lone entry has nothing left to do).
  await ensureOrderMaps(key);
  if (!(await unlessRefused(update)) && entries.length > 1) await mapWithConcurrency(entries, WRITE_CONCURRENCY, (one) => setOrderEntries(slot, [one], touched));
}

/** What a batch reads before it writes: its orders' pointers, and the items new entries go to under their identifiers. */
interface KnownOrderItems {
  pointers: Map<string, Record<string, unknown>>;
  /** By identifier: its pages beyond the head, and its last item (the head when it has none) with its entries. */
  identities: Map<string, { pages: number; last: Record<string, unknown> | undefined }>;
}

async function readOrderItems(pixelId: string, orders: ReadonlyArray<{ orderId: string; order?: Order }>): Promise<KnownOrderItems> {
  const identities = [...new Set(orders.flatMap(({ order }) => (order ? identityKeys(toQueryOrder(order).customer) : [])))];
  const [pointerItems, heads] = await Promise.all([
    batchGet(orders.map(({ orderId }) => pointerKey(pixelId, orderId)), { concurrency: READ_CONCURRENCY }),
    batchGet(identities.map((identity) => identityKey(pixelId, identity)), { concurrency: READ_CONCURRENCY }),
  ]);
  const known: KnownOrderItems = { pointers: new Map(pointerItems.map((item) => [item.PK as string, item])), identities: new Map() };
  const paged: ItemKey[] = [];
  for (const head of heads) {
    const identity = identityOfPk(head.PK as string);
    const pages = typeof head.np === 'number' ? head.np : 0;
    known.identities.set(identity, { pages, last: pages === 0 ? head : undefined });
    if (pages > 0) paged.push(identityKey(pixelId, identity, pages));
  }
  for (const last of await batchGet(paged, { concurrency: READ_CONCURRENCY })) known.identities.get(identityOfPk(last.PK as string))!.last = last;
  return known;
}

/**
 * Where one order's entry goes under one of its identifiers; `written` when the item holds it (or
 * a newer one) already, `fresh` when the item did not exist when read.
 */
interface IdentityPlacement {
  key: ItemKey;
  entry: OrderEntry;
  written: boolean;
  fresh?: boolean;
}

/**
 * Places each live order's entry under each of its identifiers: where its pointer says it is (a
 * new version replaces it in place), else in the identifier's last item, opening a new page when
 * that item would pass `IDENTITY_PAGE_BYTES`. Pages are counted on the head (`np`, only ever
 * raised) before any entry is written to them, so a reader always finds every page written.
 * A placement never needs to be the same on a retry: an order's state under an identifier is its
 * newest entry in any of the identifier's items.
 */
async function placeIdentityEntries(
  pixelId: string,
  orders: ReadonlyArray<{ orderId: string; version: number; order?: Order }>,
  known: KnownOrderItems,
): Promise<Map<string, IdentityPlacement[]>> {
  const placements = new Map<string, IdentityPlacement[]>();
  const open = new Map<string, { pages: number; key: ItemKey; entries: Record<string, OrderEntry>; bytes: number; opened: boolean; fresh: boolean }>();
  const lastOf = (identity: string) => {
    let last = open.get(identity);
    if (!last) {
      const read = known.identities.get(identity);
      const entries = (read?.last?.o ?? {}) as Record<string, OrderEntry>;
      const pages = read?.pages ?? 0;
      const bytes = Object.entries(entries).reduce((sum, [orderId, entry]) => sum + entryBytes(orderId, entry), 0);
      last = { pages, key: identityKey(pixelId, identity, pages), entries, bytes, opened: false, fresh: read?.last === undefined };
      open.set(identity, last);
    }
    return last;
  };
  for (const { orderId, version, order } of [...orders].sort((a, b) => (a.orderId < b.orderId ? -1 : 1))) {
    const pointer = known.pointers.get(pointerKey(pixelId, orderId).PK);
    if (!order || (pointer && (pointer.v as number) > version)) continue;
    const entry: OrderEntry = { v: version, f: encodeFact(toQueryOrder(order)) };
    const previous = ((pointer?.keys as string[] | undefined) ?? []).map(slotOf);
    const mine: IdentityPlacement[] = [];
    for (const identity of identityKeys(order.customer)) {
      const last = lastOf(identity);
      const stored = last.entries[orderId];
      const where = previous.find((slot) => slot.PK === last.key.PK);
      if (where) {
        mine.push({ key: { PK: where.PK, SK: where.SK }, entry, written: where.SK === last.key.SK && isCurrent(stored, entry) });
        continue;
      }
      if (stored) {
        mine.push({ key: last.key, entry, written: isCurrent(stored, entry) });
        continue;
      }
      const bytes = entryBytes(orderId, entry);
      if (!fitsInIdentityItem(last.bytes, bytes)) {
        last.pages++;
        last.key = identityKey(pixelId, identity, last.pages);
        last.entries = {};
        last.bytes = 0;
        last.opened = true;
        last.fresh = true;
      }
      last.bytes += bytes;
      mine.push({ key: last.key, entry, written: false, fresh: last.fresh });
    }
    placements.set(orderId, mine);
  }
  await mapWithConcurrency(
    [...open].filter(([, last]) => last.opened),
    WRITE_CONCURRENCY,
    async ([identity, { pages }]) => {
      await unlessRefused(() =>
        documentClient.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: identityKey(pixelId, identity),
            UpdateExpression: 'SET np = :np',
            ConditionExpression: 'attribute_not_exists(np) OR np < :np',
            ExpressionAttributeValues: { ':np': pages },
          }),
        ),
      );
    },
  );
  return placements;
}

/**
 * Creates the identity items that did not exist when read, each holding every entry the batch
 * places in it, all in a few calls (conditional puts, `putEachUnlessRefused`); their placements are
 * then written. An item that another writer (an import beside the drain) created meanwhile
 * refuses its put: its placements are then set in it one by one, as into any existing item.
 */
async function createFreshIdentityItems(placements: ReadonlyMap<string, IdentityPlacement[]>): Promise<void> {
  const items = new Map<string, { key: ItemKey; entries: Record<string, OrderEntry>; placements: IdentityPlacement[] }>();
  for (const [orderId, mine] of placements) {
    for (const placement of mine) {
      if (!placement.fresh || placement.written) continue;
      const id = keyId(placement.key);
      const item = items.get(id) ?? { key: placement.key, entries: {}, placements: [] };
      item.entries[orderId] = placement.entry;
      item.placements.push(placement);
      items.set(id, item);
    }
  }
  const fresh = [...items.values()];
  const created = await putEachUnlessRefused(fresh.map(({ key, entries }) => ({ Item: { ...key, o: entries }, ConditionExpression: 'attribute_not_exists(PK)' })));
  fresh.forEach(({ placements: placed }, i) => {
    for (const placement of placed) {
      placement.written = created[i]!;
      placement.fresh = false;
    }
  });
}

/** Whether a stored entry is the given one or newer: nothing to write. */
const isCurrent = (stored: OrderEntry | undefined, entry: OrderEntry) => stored !== undefined && (stored.v > entry.v || (stored.v === entry.v && stored.f === entry.f));

/**
 * Where an entry sits, as far as leaving it goes: an identifier's partition for an identity entry
 * (in any of its items: the newest entry in any of them is the order's state there), else the item
 * and map.
 */
function placeOf(slot: EntrySlot): string {
  return slot.PK.includes(QC_MARK) ? slot.PK : keyId(slot);
}

/** Sets one order's entry in a packed item, unless the item holds a newer version of it. */
function setOrderEntry(slot: EntrySlot, orderId: string, entry: OrderEntry, touched?: Map<string, Promise<ItemKey>>): Promise<void> {
  return setOrderEntries(slot, [{ orderId, entry }], touched);
}

const isDayItem = (key: ItemKey) => key.PK.includes('#QO#');

/**
 * The packed copy of a day item is marked behind before the item first changes in this run (and
 * packed again at the end): a crash in between leaves it marked, never current and wrong.
 */
async function markedBehind(key: ItemKey, touched: Map<string, Promise<ItemKey>>): Promise<void> {
  if (!isDayItem(key)) return;
  const id = keyId(key);
  if (!touched.has(id)) touched.set(id, markBehind(key).then(() => key));
  await touched.get(id);
}

/** Creates an order item's empty maps where missing (a day item has two, an identity item one); idempotent. */
async function ensureOrderMaps(key: ItemKey): Promise<void> {
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: isDayItem(key) ? 'SET o = if_not_exists(o, :empty), r = if_not_exists(r, :empty)' : 'SET o = if_not_exists(o, :empty)',
      ExpressionAttributeValues: { ':empty': {} },
    }),
  );
}

/**
 * A day item's live entries packed in one attribute each, `p` for map `o` and `q` for map `r` (gzip
 * of the JSON rows `[[orderId, v, fact], ...]`, by order id), in an item of their own beside the
 * day item (`PACKED`): a query reads that small item alone, since a store reads a whole item to
 * return any part of it. `want` counts the changes begun on the day item, `done` the count the copy
 * was packed at; a query falls back to the day item's maps when they differ.
 */
function packEntries(entries: Record<string, OrderEntry>, lean = false): Uint8Array {
  const rows = Object.entries(entries)
    .filter(([, entry]) => entry.f !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([orderId, entry]) => `[${JSON.stringify(orderId)},${entry.v},${lean ? leanFact(entry.f!) : entry.f}]`);
  return gzipSync(`[${rows.join(',')}]`, { level: 1 });
}

/** The packed attributes of a day item's maps: whole and lean copies of both. */
function packedCopies(o: Record<string, OrderEntry>, r: Record<string, OrderEntry>) {
  return { p: packEntries(o), q: packEntries(r), lp: packEntries(o, true), lq: packEntries(r, true) };
}

/**
 * An encoded fact as the query and cohort reads need it: the customer's identifier lists emptied
 * when the fact carries a usable digest (present, not cut), since then who the customer is and
 * whether the order is their first comes from the digest alone. Identifier hashes barely
 * compress: on the bench's orders a lean copy is 60 % of a whole one gzipped (68 bytes an order
 * against 112).
 * A fact without a usable digest keeps its identifiers: a query reads its customer's history
 * through them. Attribution reads the lean copies too (it finds journeys by order id and date).
 */
export function leanFact(fact: string): string {
  if (fact.startsWith('{')) return fact;
  const row = JSON.parse(fact) as EncodedFact;
  const digest = row[11];
  if (!digest || digest[1] === null) return fact;
  row[8] = [];
  row[9] = [];
  row[10] = [];
  return JSON.stringify(row);
}

const packedKey = (key: ItemKey): ItemKey => ({ PK: key.PK, SK: PACKED_SK });

/** Marks a day item's packed copy, and its day's columnar copy, behind a change about to begin. */
async function markBehind(key: ItemKey): Promise<void> {
  const add = (copyKey: ItemKey) => documentClient.send(new UpdateCommand({ TableName: tableName(), Key: copyKey, UpdateExpression: 'ADD want :one', ExpressionAttributeValues: { ':one': 1 } }));
  await Promise.all([add(packedKey(key)), add(dayCopyKeyOf(key))]);
}

/**
 * Packs a day item's maps at the change count read before them; a change begun since makes the
 * write a no-op (its own run packs again). Returns the day item as read (null when absent), or
 * undefined when it was not read.
 */
async function repack(key: ItemKey): Promise<Record<string, unknown> | null | undefined> {
  const { Item: copy } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: packedKey(key), ConsistentRead: true }));
  if (!copy || typeof copy.want !== 'number') return undefined;
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  await unlessRefused(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: packedKey(key),
        UpdateExpression: 'SET p = :p, q = :q, lp = :lp, lq = :lq, done = :want',
        ConditionExpression: 'want = :want',
        ExpressionAttributeValues: {
          ...Object.fromEntries(
            Object.entries(packedCopies((Item?.o ?? {}) as Record<string, OrderEntry>, (Item?.r ?? {}) as Record<string, OrderEntry>)).map(([name, value]) => [`:${name}`, value]),
          ),
          ':want': copy.want,
        },
      }),
    ),
  );
  return Item ?? null;
}

/**
 * One lean columnar copy of a UTC day's order facts, `PIXEL#<p>#QD#<YYYY-MM-DD>` / `COLS`
 * { c, d, ci, di, want, done } (or { x, want, done } for a day that does not fit), kept beside the day's 8
 * order items: `c` the live orders placed that day, `d` the live orders with a refund processed
 * that day, merged over the shards (newest version of each order), each a gzipped JSON object of
 * columns (`DayColumns`). The query, attribution and (without cost measures) cohort reads read
 * one item per day instead of 8, and decode numbers and small dictionary indexes instead of a
 * JSON array per order: order times and refund times are milliseconds from the day's start,
 * currency, source, gateway, status and tag lists indexes into the copy's own dictionary; the
 * customer digest as columns too; identifiers only for orders without a usable digest (as the lean
 * copies); line items and shipping costs in columns of their own, `ci` and `di`, read only by
 * cost measures.
 * `want`/`done` as the packed copies': `want` counts changes begun on any of the day's items
 * (`markBehind`), `done` the count the copy was built at. A reader takes the copy only when
 * current; otherwise (a change not packed yet, a day over `DAY_COPY_MAX_BYTES`, a fact the
 * columns cannot hold exactly) it reads that day's shard copies. A day without the item has no
 * orders: the item is created by the first change's mark, before any entry is written. Its own
 * key prefix (`QD`), so data written before it existed is not read beside it until
 * `rebuild-read-models` writes it (README upgrade note).
 */
const DAY_COPY_SK = 'COLS';
const DAY_COPY_MARK = '#QD#';
const dayCopyKey = (pixelId: string, day: string): ItemKey => ({ PK: `PIXEL#${pixelId}${DAY_COPY_MARK}${day}`, SK: DAY_COPY_SK });
/** The day copy of an order day item (`PIXEL#<p>#QO#<day>#<shard>`). */
const dayCopyKeyOf = (key: ItemKey): ItemKey => {
  const at = key.PK.lastIndexOf('#QO#');
  return { PK: `${key.PK.slice(0, at)}${DAY_COPY_MARK}${key.PK.slice(at + 4, at + 14)}`, SK: DAY_COPY_SK };
};
/** The order day items a day copy is built from. */
const shardKeysOfDayCopy = (key: ItemKey): ItemKey[] => {
  const at = key.PK.lastIndexOf(DAY_COPY_MARK);
  const pixelPart = key.PK.slice(0, at);
  const day = key.PK.slice(at + DAY_COPY_MARK.length);
  return Array.from({ length: ORDER_SHARDS }, (_, shard) => ({ PK: `${pixelPart}#QO#${day}#${shard}`, SK: FACTS_SK }));
};
const dayOfCopyKey = (pk: string) => pk.slice(pk.lastIndexOf(DAY_COPY_MARK) + DAY_COPY_MARK.length);

/**
 * The most a day copy's two columns may take gzipped: DynamoDB's item cap is 400 KB, and a day
 * over it is read from its shards. The bench's days (about 275 orders) take a few KB; a day of
 * 8,500 orders with two identifiers and two line items each and a digest of one earlier order
 * about 80 KB (query-day-copies.test.ts); digests of 50 earlier orders make it larger.
 */
export const DAY_COPY_MAX_BYTES = 350_000;

/**
 * A day's orders as columns, one entry per order (by order id) in each per-order column; `s` is
 * the copy's dictionary of strings, which the index columns point into (-1 for null).
 */
interface DayColumns {
  s: string[];
  /** Tag lists, as indexes into `s`; `tg` points into it (-1 for no tags). */
  tl: number[][];
  id: string[];
  v: number[];
  /** Order time, ms from the day's start (negative for an order placed before a refund day). */
  t: number[];
  val: Array<number | null>;
  cur: number[];
  src: number[];
  gw: number[];
  st: number[];
  tg: number[];
  /** Refunds per order; their amounts and times (ms from the day's start), in order. */
  rn: number[];
  ra: number[];
  rt: number[];
  /** The digest's customer id: 0 when it is the order itself, null without a digest. */
  cu: Array<string | 0 | null>;
  /** The digest's earlier orders per order (-1: cut, the query reads the history), their counting fields in order. */
  en: number[];
  es: number[];
  esrc: number[];
  etg: number[];
  ev: Array<number | null>;
  egw: number[];
  /** Identifiers of the orders without a usable digest: [order index, userIds, emailHashes, phoneHashes]. */
  idn: Array<[number, string[], string[], string[]]>;
}

/**
 * What costing reads of the same orders (same order), apart so that only cost measures read it:
 * line items per order (-1: the fact has none), their SKU (index into `s`, -1 none), quantity,
 * price and cost, and each order's shipping cost.
 */
interface DayCostColumns {
  s: string[];
  n: number[];
  sku: number[];
  q: number[];
  p: number[];
  c: Array<number | null>;
  sh: Array<number | null>;
}

/** Index of a string in `values`, appended the first time it is met: a copy's dictionary. */
function dictionaryOf(values: string[]): (value: string) => number {
  const indexOf = new Map<string, number>();
  return (value) => {
    let index = indexOf.get(value);
    if (index === undefined) {
      index = values.length;
      values.push(value);
      indexOf.set(value, index);
    }
    return index;
  };
}

/** The columns of a day's orders, or undefined when a time does not read back as stored (not `toISOString()` form). */
function encodeDayColumns(rows: ReadonlyArray<readonly [string, number, QueryOrder]>, dayStart: number): { base: string; costs: string } | undefined {
  const costCols: DayCostColumns = { s: [], n: [], sku: [], q: [], p: [], c: [], sh: [] };
  const skuIndex = dictionaryOf(costCols.s);
  const cols: DayColumns = { s: [], tl: [], id: [], v: [], t: [], val: [], cur: [], src: [], gw: [], st: [], tg: [], rn: [], ra: [], rt: [], cu: [], en: [], es: [], esrc: [], etg: [], ev: [], egw: [], idn: [] };
  const stringIndex = dictionaryOf(cols.s);
  const str = (value: string | null): number => (value === null ? -1 : stringIndex(value));
  const tagListAt = new Map<string, number>();
  const tagList = (tags: readonly string[]): number => {
    if (tags.length === 0) return -1;
    const key = JSON.stringify(tags);
    let at = tagListAt.get(key);
    if (at === undefined) {
      at = cols.tl.length;
      cols.tl.push(tags.map(str));
      tagListAt.set(key, at);
    }
    return at;
  };
  const offset = (iso: string): number | undefined => {
    const at = Date.parse(iso);
    return Number.isFinite(at) && new Date(at).toISOString() === iso ? at - dayStart : undefined;
  };
  for (const [orderId, v, order] of rows) {
    const t = offset(order.orderDate);
    if (t === undefined) return undefined;
    cols.id.push(orderId);
    cols.v.push(v);
    cols.t.push(t);
    cols.val.push(order.value);
    cols.cur.push(str(order.currency));
    cols.src.push(str(order.sourceName));
    cols.gw.push(str(order.paymentGateway));
    cols.st.push(str(order.financialStatus));
    cols.tg.push(tagList(order.tags));
    cols.rn.push(order.refunds.length);
    for (const refund of order.refunds) {
      const rt = offset(refund.processedAt);
      if (rt === undefined) return undefined;
      cols.ra.push(refund.amount);
      cols.rt.push(rt);
    }
    const digest = order.customerDigest;
    cols.cu.push(digest ? (digest.customerId === orderId ? 0 : digest.customerId) : null);
    cols.en.push(digest?.earlier ? digest.earlier.length : -1);
    for (const earlier of digest?.earlier ?? []) {
      cols.es.push(str(earlier.financialStatus));
      cols.esrc.push(str(earlier.sourceName));
      cols.etg.push(tagList(earlier.tags));
      cols.ev.push(earlier.value);
      cols.egw.push(str(earlier.paymentGateway));
    }
    const { userIds, emailHashes, phoneHashes } = order.customer;
    if ((!digest || digest.earlier === null) && userIds.length + emailHashes.length + phoneHashes.length > 0) cols.idn.push([cols.id.length - 1, userIds, emailHashes, phoneHashes]);
    costCols.n.push(order.items ? order.items.length : -1);
    for (const item of order.items ?? []) {
      costCols.sku.push(item.sku === undefined ? -1 : skuIndex(item.sku));
      costCols.q.push(item.quantity);
      costCols.p.push(item.price);
      costCols.c.push(item.cost ?? null);
    }
    costCols.sh.push(order.shippingCost ?? null);
  }
  return { base: JSON.stringify(cols), costs: JSON.stringify(costCols) };
}

/** The live entries of a map over a day's items, newest version of each order (a live entry wins a tie with a tombstone), by order id. */
function liveDayRows(items: ReadonlyArray<Record<string, unknown> | null | undefined>, map: 'o' | 'r'): Array<[string, number, QueryOrder]> {
  const newest = new Map<string, OrderEntry>();
  for (const item of items) {
    for (const [orderId, entry] of Object.entries((item?.[map] ?? {}) as Record<string, OrderEntry>)) {
      const known = newest.get(orderId);
      if (!known || known.v < entry.v || (known.v === entry.v && known.f === undefined)) newest.set(orderId, entry);
    }
  }
  return [...newest]
    .filter(([, entry]) => entry.f !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([orderId, entry]) => [orderId, entry.v, decodeFact(orderId, entry.f!)]);
}

/** A day copy's attributes from the day's order items: its columns, or `x` when they do not fit or cannot hold a fact exactly. */
export function dayCopyAttributes(
  day: string,
  items: ReadonlyArray<Record<string, unknown> | null | undefined>,
  maxBytes = DAY_COPY_MAX_BYTES,
): { c: Uint8Array; d: Uint8Array; ci: Uint8Array; di: Uint8Array } | { x: 1 } {
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  const placed = encodeDayColumns(liveDayRows(items, 'o'), dayStart);
  const refunded = encodeDayColumns(liveDayRows(items, 'r'), dayStart);
  if (placed === undefined || refunded === undefined) return { x: 1 };
  const copy = { c: gzipSync(placed.base), d: gzipSync(refunded.base), ci: gzipSync(placed.costs), di: gzipSync(refunded.costs) };
  return Object.values(copy).reduce((sum, part) => sum + part.byteLength, 0) > maxBytes ? { x: 1 } : copy;
}

/**
 * Packs the day items a projection run changed (`repack`), then the columnar copies of their
 * days: each day copy's change count is read before any of its day's items, so a change begun
 * after makes its write a no-op (that change's run packs again). The items the packing read are
 * reused; the day's other items are read once.
 */
async function repackTouched(keys: readonly ItemKey[]): Promise<void> {
  const days = [...new Map(keys.filter(isDayItem).map((key) => dayCopyKeyOf(key)).map((key) => [key.PK, key])).values()];
  const wants = new Map(
    await mapWithConcurrency(days, WRITE_CONCURRENCY, async (key) => {
      const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true, ProjectionExpression: 'want' }));
      return [key.PK, Item?.want] as const;
    }),
  );
  const read = new Map<string, Record<string, unknown> | null>();
  await mapWithConcurrency(keys, WRITE_CONCURRENCY, async (key) => {
    const item = await repack(key);
    if (item !== undefined) read.set(key.PK, item);
  });
  await mapWithConcurrency(days, WRITE_CONCURRENCY, async (key) => {
    const want = wants.get(key.PK);
    if (typeof want !== 'number') return;
    const shards = shardKeysOfDayCopy(key);
    const unread = shards.filter((shard) => !read.has(shard.PK));
    const items = [...shards.flatMap((shard) => (read.has(shard.PK) ? [read.get(shard.PK)] : [])), ...(unread.length > 0 ? await batchGet(unread) : [])];
    const copy = dayCopyAttributes(dayOfCopyKey(key.PK), items);
    await unlessRefused(() =>
      documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'x' in copy ? 'SET x = :x, done = :want REMOVE c, d, ci, di' : 'SET c = :c, d = :d, ci = :ci, di = :di, done = :want REMOVE x',
          ConditionExpression: 'want = :want',
          ExpressionAttributeValues: { ...Object.fromEntries(Object.entries(copy).map(([name, value]) => [`:${name}`, value])), ':want': want },
        }),
      ),
    );
  });
}

/** The day copies of a bulk write's order day items (`writeInitialReadModels`), current at change count 1. */
function initialDayCopies(items: ReadonlyArray<{ key: ItemKey; maps: Record<string, Record<string, unknown>> }>): WriteRequest[] {
  const byDay = new Map<string, { key: ItemKey; items: Array<Record<string, unknown>> }>();
  for (const { key, maps } of items) {
    if (!isDayItem(key)) continue;
    const dayKey = dayCopyKeyOf(key);
    const group = byDay.get(dayKey.PK) ?? { key: dayKey, items: [] };
    group.items.push(maps);
    byDay.set(dayKey.PK, group);
  }
  return [...byDay.values()].map(({ key, items: dayItems }) => ({ PutRequest: { Item: { ...key, want: 1, done: 1, ...dayCopyAttributes(dayOfCopyKey(key.PK), dayItems) } } }));
}

const TWO_DIGITS = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'));

/**
 * The `toISOString()` form of an instant `offset` ms from the start of `day` (`YYYY-MM-DD`),
 * written from the day's prefix when it falls within that day: `Date#toISOString` cost about a
 * microsecond an order, a tenth of a 365-day query.
 */
export function isoAt(day: string, dayStart: number, offset: number): string {
  if (offset < 0 || offset >= DAY_MS) return new Date(dayStart + offset).toISOString();
  const seconds = Math.floor(offset / 1000);
  const minutes = Math.floor(seconds / 60);
  return `${day}T${TWO_DIGITS[Math.floor(minutes / 60)]}:${TWO_DIGITS[minutes % 60]}:${TWO_DIGITS[seconds % 60]}.${THREE_DIGITS[offset % 1000]}Z`;
}

const NO_TAGS: string[] = Object.freeze([]) as unknown as string[];
const NO_REFUNDS: QueryOrder['refunds'] = Object.freeze([]) as unknown as QueryOrder['refunds'];
const NO_EARLIER_ORDERS: DigestOrder[] = Object.freeze([]) as unknown as DigestOrder[];
/** The customer of a lean fact (a usable digest says who the customer is): shared, never written to. */
const NO_IDENTIFIERS: QueryOrder['customer'] = Object.freeze({ userIds: NO_TAGS, emailHashes: NO_TAGS, phoneHashes: NO_TAGS }) as QueryOrder['customer'];

/**
 * An order of a day copy. Its `orderDate` text is written from `orderTime` only when read: the
 * query and cohort engines read the time and the UTC date (`orderTimeOf`, `orderUtcDate`), and a
 * year's query keeps 100,000 orders, so the text was a string of about ten pieces per order made
 * for nothing. Every field but `orderDate` is an own field, set at once, so all orders of the
 * copies share one shape. (Being a getter, `orderDate` is not copied by a spread: nothing copies
 * these orders; a test that does reads it explicitly.)
 */
class DayCopyOrder implements QueryOrder {
  readonly #day: string;
  readonly #dayStart: number;
  #orderDate: string | undefined = undefined;
  customerDigest: CustomerDigest | undefined = undefined;
  // Set only for cost measures: no slot in the other queries' orders.
  declare items?: QueryOrder['items'];
  declare shippingCost?: number;

  constructor(
    day: string,
    dayStart: number,
    public orderId: string,
    public orderTime: number,
    public value: number | null,
    public currency: string | null,
    public sourceName: string | null,
    public tags: string[],
    public paymentGateway: string | null,
    public financialStatus: QueryOrder['financialStatus'],
    public refunds: QueryOrder['refunds'],
    public customer: QueryOrder['customer'],
  ) {
    this.#day = day;
    this.#dayStart = dayStart;
  }

  get orderDate(): string {
    return (this.#orderDate ??= isoAt(this.#day, this.#dayStart, this.orderTime - this.#dayStart));
  }
}

/**
 * Brings `found` to the orders of one day copy: each order newer than any met is decided on its
 * columns (`keep`: its index, its first refund's index, its refund count) and built only when
 * kept, with the digest only for `customers`. Strings are the copy's dictionary entries, tag
 * lists shared by the orders that have them.
 */
function offerDayColumns(
  found: Found,
  cols: DayColumns,
  dayStart: number,
  keep: (cols: DayColumns, i: number, refundAt: number, refunds: number) => boolean,
  customers: boolean,
  costCols?: DayCostColumns,
): void {
  const strings = cols.s;
  const day = new Date(dayStart).toISOString().slice(0, 10);
  let itemAt = 0;
  const at = (index: number) => (index < 0 ? null : strings[index]!);
  const tagLists = cols.tl.map((list) => Object.freeze(list.map((index) => strings[index]!)) as unknown as string[]);
  const tagsAt = (index: number) => (index < 0 ? NO_TAGS : tagLists[index]!);
  let refundAt = 0;
  let earlierAt = 0;
  let identityAt = 0;
  const count = cols.id.length;
  for (let i = 0; i < count; i++) {
    const refunds = cols.rn[i]!;
    const firstRefund = refundAt;
    refundAt += refunds;
    const earlierCount = cols.en[i]!;
    const firstEarlier = earlierAt;
    if (earlierCount > 0) earlierAt += earlierCount;
    let identifiers: [number, string[], string[], string[]] | undefined;
    if (identityAt < cols.idn.length && cols.idn[identityAt]![0] === i) identifiers = cols.idn[identityAt++];
    const itemCount = costCols ? costCols.n[i]! : -1;
    const firstItem = itemAt;
    if (itemCount > 0) itemAt += itemCount;
    const orderId = cols.id[i]!;
    const v = cols.v[i]!;
    const slot = claimSlot(found, orderId, v);
    if (slot === undefined) continue;
    if (!keep(cols, i, firstRefund, refunds)) {
      found.orders[slot] = undefined;
      continue;
    }
    // Most orders have no refunds and no earlier orders: they share one empty array each, as a
    // year's query keeps 100,000 orders and every allocation here is garbage soon after.
    const decodedRefunds: QueryOrder['refunds'] = refunds === 0 ? NO_REFUNDS : new Array(refunds);
    for (let k = 0; k < refunds; k++) decodedRefunds[k] = { amount: cols.ra[firstRefund + k]!, processedAt: isoAt(day, dayStart, cols.rt[firstRefund + k]!) };
    const order = new DayCopyOrder(
      day,
      dayStart,
      orderId,
      dayStart + cols.t[i]!,
      cols.val[i]!,
      at(cols.cur[i]!),
      at(cols.src[i]!),
      tagsAt(cols.tg[i]!),
      at(cols.gw[i]!),
      strings[cols.st[i]!] as QueryOrder['financialStatus'],
      decodedRefunds,
      identifiers ? { userIds: identifiers[1], emailHashes: identifiers[2], phoneHashes: identifiers[3] } : NO_IDENTIFIERS,
    );
    const customerId = cols.cu[i]!;
    if (customers && customerId !== null) {
      let earlier: DigestOrder[] | null = null;
      if (earlierCount >= 0) {
        earlier = earlierCount === 0 ? NO_EARLIER_ORDERS : new Array(earlierCount);
        for (let k = 0; k < earlierCount; k++) {
          const e = firstEarlier + k;
          earlier[k] = { financialStatus: strings[cols.es[e]!] as QueryOrder['financialStatus'], sourceName: at(cols.esrc[e]!), tags: tagsAt(cols.etg[e]!), value: cols.ev[e]!, paymentGateway: at(cols.egw[e]!) };
        }
      }
      order.customerDigest = { customerId: customerId === 0 ? orderId : customerId, earlier };
    }
    if (costCols) {
      if (itemCount >= 0) {
        const items: NonNullable<QueryOrder['items']> = new Array(itemCount);
        for (let k = 0; k < itemCount; k++) {
          const at = firstItem + k;
          const sku = costCols.sku[at]!;
          const cost = costCols.c[at]!;
          const item: NonNullable<QueryOrder['items']>[number] = sku < 0 ? { quantity: costCols.q[at]!, price: costCols.p[at]! } : { sku: costCols.s[sku]!, quantity: costCols.q[at]!, price: costCols.p[at]! };
          if (cost !== null) item.cost = cost;
          items[k] = item;
        }
        order.items = items;
      }
      const shipping = costCols.sh[i]!;
      if (shipping !== null) order.shippingCost = shipping;
    }
    found.orders[slot] = order;
  }
}

/**
 * The orders of [from, to) from the day copies of its UTC days (placed, and with `refunded` the
 * refunded; with `costs` their cost columns too), each BatchGetItem call's copies unpacked in one
 * gunzip and parse as it answers; the days whose copy is not current are read from their shards'
 * lean copies into the same `found` (the newest version of an order wins).
 */
async function readDayCopies(pixelId: string, from: number, to: number, options: { refunded: boolean } & FactParts): Promise<Record<'o' | 'r', QueryOrder[]>> {
  const found: Record<'o' | 'r', Found> = { o: newFound(), r: newFound() };
  const placedKeep = (dayStart: number) => (cols: DayColumns, i: number) => {
    const t = dayStart + cols.t[i]!;
    return t >= from && t < to;
  };
  const refundKeep = (dayStart: number) => (cols: DayColumns, _i: number, first: number, count: number) => {
    for (let k = first; k < first + count; k++) {
      const t = dayStart + cols.rt[k]!;
      if (t >= from && t < to) return true;
    }
    return false;
  };
  // The attributes read per map: its columns, then (with costs) its cost columns.
  const maps: Array<{ map: 'o' | 'r'; attributes: string[] }> = [
    { map: 'o', attributes: options.costs ? ['c', 'ci'] : ['c'] },
    ...(options.refunded ? [{ map: 'r' as const, attributes: options.costs ? ['d', 'di'] : ['d'] }] : []),
  ];
  const perCopy = options.costs ? 2 : 1;
  const behind: string[] = [];
  const unpacking: Array<Promise<void>> = [];
  const onItems = (items: Array<Record<string, unknown>>) => {
    const copies: Uint8Array[] = [];
    const groups: Array<{ map: 'o' | 'r'; dayStart: number }> = [];
    for (const item of items) {
      const day = dayOfCopyKey(item.PK as string);
      if (item.done !== item.want || maps.some(({ attributes }) => attributes.some((name) => !(item[name] instanceof Uint8Array)))) {
        behind.push(day);
        continue;
      }
      const dayStart = Date.parse(`${day}T00:00:00Z`);
      for (const { map, attributes } of maps) {
        for (const name of attributes) copies.push(item[name] as Uint8Array);
        groups.push({ map, dayStart });
      }
    }
    if (copies.length === 0) return;
    unpacking.push(
      unpackAll<DayColumns | DayCostColumns>(copies).then((all) => {
        groups.forEach(({ map, dayStart }, index) => {
          const cols = all[index * perCopy] as DayColumns;
          const costCols = options.costs ? (all[index * perCopy + 1] as DayCostColumns) : undefined;
          offerDayColumns(found[map], cols, dayStart, map === 'o' ? placedKeep(dayStart) : refundKeep(dayStart), options.customers, costCols);
        });
      }),
    );
  };
  await batchGet(
    utcDays(from, to).map((day) => dayCopyKey(pixelId, day)),
    { concurrency: READ_CONCURRENCY, attributes: [...maps.flatMap(({ attributes }) => attributes), 'want', 'done'], onItems },
  );
  await Promise.all(unpacking);
  if (behind.length > 0) {
    const keys = behind.flatMap((day) => Array.from({ length: ORDER_SHARDS }, (_, shard) => orderDayKey(pixelId, day, shard)));
    await readDayItems(keys, { o: placedIn(from, to, options), ...(options.refunded ? { r: refundedIn(from, to, options) } : {}) }, true, found);
  }
  return { o: keptOrders(found.o), r: keptOrders(found.r) };
}


const DAY_MS = 86_400_000;

/**
 * Writes the order read models of a pixel that has none yet, from its whole set of orders, with
 * batched puts of the same items the projectors keep (demo data and benchmark datasets). Not for
 * a pixel with read-model items already: it replaces items rather than merging entries.
 */
export async function writeInitialReadModels(
  pixelId: string,
  orders: readonly VersionedOrder[],
): Promise<void> {
  const items = new Map<string, { key: ItemKey; maps: Record<string, Record<string, unknown>> }>();
  const add = (slot: ItemKey & { map?: string }, fallbackMap: 'o' | 'e', id: string, entry: unknown) => {
    const key = { PK: slot.PK, SK: slot.SK };
    const item = items.get(keyId(key)) ?? { key, maps: isDayItem(key) ? { o: {}, r: {} } : {} };
    (item.maps[slot.map ?? fallbackMap] ??= {})[id] = entry;
    items.set(keyId(key), item);
  };
  const pointers: WriteRequest[] = [];
  const identityPages = new Map<string, Array<{ entries: Record<string, OrderEntry>; bytes: number }>>();
  const facts = orders.map(({ order, version }) => ({ v: version, fact: toQueryOrder(order) }));
  // The customers are those of the orders given, which must be all of the pixel's.
  const customerOf = customerKeys(facts.map(({ fact }) => fact));
  const groups = new Map<string, QueryOrder[]>();
  for (const { fact } of facts) {
    const customer = customerOf.get(fact.orderId)!;
    const group = groups.get(customer);
    if (group) group.push(fact);
    else groups.set(customer, [fact]);
  }
  const digests = new Map<string, CustomerDigest>();
  for (const group of groups.values()) for (const [orderId, digest] of customerDigests(group, MAX_DIGEST_ORDERS)) digests.set(orderId, digest);
  for (const { v, fact } of facts) {
    const dayKeys = orderDayKeys(pixelId, fact);
    for (const key of dayKeys) add(key, 'o', fact.orderId, { v, f: encodeFact(fact, digests.get(fact.orderId)) } satisfies OrderEntry);
    const identityEntry: OrderEntry = { v, f: encodeFact(fact) };
    const identityItemKeys = identityKeys(fact.customer).map((identity) => {
      let pages = identityPages.get(identity);
      if (!pages) identityPages.set(identity, (pages = [{ entries: {}, bytes: 0 }]));
      const bytes = entryBytes(fact.orderId, identityEntry);
      if (!fitsInIdentityItem(pages.at(-1)!.bytes, bytes)) pages.push({ entries: {}, bytes: 0 });
      const last = pages.at(-1)!;
      last.entries[fact.orderId] = identityEntry;
      last.bytes += bytes;
      return identityKey(pixelId, identity, pages.length - 1);
    });
    pointers.push({ PutRequest: { Item: { ...pointerKey(pixelId, fact.orderId), v, keys: [...orderDayKeys(pixelId, fact), ...identityItemKeys].map(keyId) } } });
  }
  const puts: WriteRequest[] = [...items.values()].flatMap(({ key, maps }) => [
    { PutRequest: { Item: { ...key, ...maps } } },
    ...(isDayItem(key)
      ? [{ PutRequest: { Item: { ...packedKey(key), want: 1, done: 1, ...packedCopies(maps.o as Record<string, OrderEntry>, maps.r as Record<string, OrderEntry>) } } }]
      : []),
  ]);
  const identityPuts: WriteRequest[] = [...identityPages].flatMap(([identity, pages]) =>
    pages.map(({ entries }, page) => ({ PutRequest: { Item: { ...identityKey(pixelId, identity, page), o: entries, ...(page === 0 && pages.length > 1 ? { np: pages.length - 1 } : {}) } } })),
  );
  await batchWrite([...puts, ...identityPuts, ...initialDayCopies([...items.values()]), ...pointers], { concurrency: WRITE_CONCURRENCY });
}

/** The UTC days an instant range touches. */
function utcDays(from: number, to: number): string[] {
  const days: string[] = [];
  for (let day = Math.floor(from / DAY_MS) * DAY_MS; day < to; day += DAY_MS) days.push(new Date(day).toISOString().slice(0, 10));
  return days;
}

function liveOrders(items: ReadonlyArray<Record<string, unknown>>, map: 'o' | 'r' = 'o'): Map<string, { v: number; order: QueryOrder }> {
  const orders = new Map<string, { v: number; order: QueryOrder }>();
  for (const item of items) {
    for (const [orderId, entry] of Object.entries((item[map] ?? {}) as Record<string, OrderEntry>)) {
      const known = orders.get(orderId);
      if (known && known.v >= entry.v) continue;
      if (entry.f === undefined) orders.delete(orderId);
      else orders.set(orderId, { v: entry.v, order: decodeFact(orderId, entry.f) });
    }
  }
  return orders;
}

/** An entry of a packed copy as parsed: [orderId, version, encoded fact]. */
type PackedRow = [string, number, EncodedFact];

/**
 * What a read keeps of one map (`o` or `r`) of day items: the entries `keep` accepts (on the raw
 * row, so a rejected one is never built; `keepOrder` for entries read whole), decoded with `parts`.
 */
interface MapReader {
  keep: (row: EncodedFact) => boolean;
  keepOrder: (order: QueryOrder) => boolean;
  parts: FactParts;
}

/**
 * The orders met in a map: where each is (`at`, one lookup per entry), its newest version met, and
 * its state at that version when the reader keeps it (else undefined).
 */
interface Found {
  at: Map<string, number>;
  versions: number[];
  orders: Array<QueryOrder | undefined>;
}

const newFound = (): Found => ({ at: new Map(), versions: [], orders: [] });

/**
 * The order's slot in `found`, now at version `v`; undefined when a version as new or newer was
 * met already (the same order read from a day copy and from its shards, or from two shards).
 */
function claimSlot(found: Found, orderId: string, v: number): number | undefined {
  let slot = found.at.get(orderId);
  if (slot === undefined) {
    slot = found.orders.length;
    found.at.set(orderId, slot);
  } else if (found.versions[slot]! >= v) return undefined;
  found.versions[slot] = v;
  return slot;
}

/** Brings `found` to an entry: newer than any met, it is the order's state, kept or not. */
function offerEntry(found: Found, reader: MapReader, orderId: string, v: number, row: EncodedFact): void {
  const at = claimSlot(found, orderId, v);
  if (at === undefined) return;
  if (!Array.isArray(row)) {
    // A fact written before the positional encoding holds the object itself.
    const order = { ...(row as unknown as QueryOrder), orderId };
    found.orders[at] = reader.keepOrder(order) ? order : undefined;
  } else found.orders[at] = reader.keep(row) ? decodeRow(orderId, row, reader.parts) : undefined;
}

const keptOrders = (found: Found) => found.orders.filter((order): order is QueryOrder => order !== undefined);

/**
 * The live orders of day items that each map's reader keeps (`o`, `r`), in one read of the items:
 * each item's packed copy (with `lean`, its lean copy) when it is current, else (a write whose
 * repack has not run yet, or a copy packed before lean copies existed) its maps of entries, read
 * again whole. Each call's copies are unpacked and decoded as soon as it answers (the inflating
 * on the thread pool), so decoding overlaps the calls still in flight instead of following the
 * last of them, and the parsed rows die young: only the orders kept outlive a batch.
 */
async function readDayItems(
  keys: readonly ItemKey[],
  readers: Partial<Record<'o' | 'r', MapReader>>,
  lean = false,
  found: Record<'o' | 'r', Found> = { o: newFound(), r: newFound() },
): Promise<Record<'o' | 'r', QueryOrder[]>> {
  const wholeOf = { o: 'p', r: 'q' } as const;
  const leanOf = { o: 'lp', r: 'lq' } as const;
  const maps = (['o', 'r'] as const).filter((map) => readers[map] !== undefined);
  const attributes = maps.map((map) => (lean ? leanOf[map] : wholeOf[map]));
  const stale: ItemKey[] = [];
  const unpacking: Array<Promise<void>> = [];
  const onItems = (items: Array<Record<string, unknown>>) => {
    const packed: Record<'o' | 'r', Uint8Array[]> = { o: [], r: [] };
    for (const item of items) {
      const copies = maps.map((map) => [map, item[lean ? leanOf[map] : wholeOf[map]]] as const);
      if (item.done !== item.want || copies.some(([, copy]) => !(copy instanceof Uint8Array))) {
        stale.push({ PK: item.PK as string, SK: FACTS_SK });
        continue;
      }
      for (const [map, copy] of copies) packed[map].push(copy as Uint8Array);
    }
    for (const map of maps) {
      if (packed[map].length === 0) continue;
      const reader = readers[map]!;
      unpacking.push(
        unpackAll(packed[map]).then((groups) => {
          for (const rows of groups) for (const [orderId, v, row] of rows) offerEntry(found[map], reader, orderId, v, row);
        }),
      );
    }
  };
  await batchGet(keys.map(packedKey), { concurrency: READ_CONCURRENCY, attributes: [...attributes, 'want', 'done'], onItems });
  await Promise.all(unpacking);
  if (stale.length > 0) {
    const staleItems = await batchGet(stale, { concurrency: READ_CONCURRENCY });
    for (const map of maps) {
      const reader = readers[map]!;
      const into = found[map];
      for (const [orderId, entry] of liveOrders(staleItems, map)) {
        let at = into.at.get(orderId);
        if (at === undefined) {
          at = into.orders.length;
          into.at.set(orderId, at);
        } else if (into.versions[at]! >= entry.v) continue;
        into.versions[at] = entry.v;
        into.orders[at] = reader.keepOrder(entry.order) ? entry.order : undefined;
      }
    }
  }
  return { o: keptOrders(found.o), r: keptOrders(found.r) };
}

/** A gzip member holding a comma: what joins the members of `unpackAll` into one JSON array. */
const COMMA_MEMBER = gzipSync(',');

/**
 * The rows of many packed copies, in one gunzip and one JSON parse: gzip members concatenated
 * decompress to their texts concatenated, so copies joined by comma members give `[rows],[rows]…`.
 * A query reads thousands of small copies, and a gunzip each cost more than the inflating. The
 * output buffer is sized from the members' trailers (each ends with its text's length), so the
 * inflating writes into one buffer of the exact size.
 */
async function unpackAll<T = PackedRow[]>(copies: readonly Uint8Array[]): Promise<T[]> {
  if (copies.length === 0) return [];
  const members: Uint8Array[] = [];
  let size = 0;
  for (const copy of copies) {
    if (members.length > 0) {
      members.push(COMMA_MEMBER);
      size += 1;
    }
    members.push(copy);
    size += Buffer.from(copy.buffer, copy.byteOffset, copy.byteLength).readUInt32LE(copy.byteLength - 4);
  }
  const joined = Buffer.concat(members);
  const inflated = await gunzipAsync(joined, { chunkSize: Math.max(64 * 1024, Math.min(size + 1, 256 * 1024 * 1024)) });
  // Facts are nearly always ASCII, which latin1 reads as a copy where UTF-8 must decode.
  const text = isAscii(inflated) ? inflated.toString('latin1') : inflated.toString('utf8');
  return JSON.parse(`[${text}]`) as T[];
}

const instantIn = (from: number, to: number) => (iso: string) => {
  const at = parseInstant(iso);
  return at >= from && at < to;
};

/** Orders placed in [from, to). */
const placedIn = (from: number, to: number, parts: FactParts = ALL_PARTS): MapReader => {
  const inRange = instantIn(from, to);
  return { keep: (row) => inRange(row[0]), keepOrder: (order) => inRange(order.orderDate), parts };
};

/** Orders with a refund processed in [from, to). */
const refundedIn = (from: number, to: number, parts: FactParts = ALL_PARTS): MapReader => {
  const inRange = instantIn(from, to);
  return {
    keep: (row) => row[7].some(([, processedAt]) => inRange(processedAt)),
    keepOrder: (order) => order.refunds.some((refund) => inRange(refund.processedAt)),
    parts,
  };
};

const dayItemKeys = (pixelId: string, from: number, to: number) =>
  utcDays(from, to).flatMap((day) => Array.from({ length: ORDER_SHARDS }, (_, shard) => orderDayKey(pixelId, day, shard)));

/**
 * What the query, cohort and attribution reads need of [from, to), in one read of the range's
 * day copies (`readDayCopies`): the orders placed in it and, with `refunded`, the orders with a
 * refund processed in it. Lean facts (`leanFact`): an order whose digest is usable comes without
 * its customer's identifiers. Items and shipping cost only with `costs`, the digest only with
 * `customers`: the objects a query would build and never read are most of its garbage.
 */
export async function readOrderFacts(
  pixelId: string,
  from: number,
  to: number,
  options: { refunded: boolean } & FactParts,
): Promise<{ placed: QueryOrder[]; refunded: QueryOrder[] }> {
  const found = await readDayCopies(pixelId, from, to, options);
  return { placed: found.o, refunded: found.r };
}

/** Orders placed in [from, to): the order-day items of the range's UTC days, read in parallel. */
export async function readOrdersPlaced(pixelId: string, from: number, to: number): Promise<QueryOrder[]> {
  return (await readDayItems(dayItemKeys(pixelId, from, to), { o: placedIn(from, to) })).o;
}

/** Orders with a refund processed in [from, to). */
export async function readOrdersRefunded(pixelId: string, from: number, to: number): Promise<QueryOrder[]> {
  return (await readDayItems(dayItemKeys(pixelId, from, to), { r: refundedIn(from, to) })).r;
}

/** How many identity rounds a customer closure may take before it is cut (a chain of linked identifiers). */
const MAX_IDENTITY_ROUNDS = 20;

/**
 * Every stored order of the customers of `orders`: the identity items of their identifiers, then
 * of the identifiers those orders bring, until no new identifier appears. Reads only the
 * customers met, so the cost follows the range, not the pixel's history.
 */
export async function readCustomerHistory(pixelId: string, orders: readonly QueryOrder[]): Promise<QueryOrder[]> {
  const found = await readIdentityClosure(
    pixelId,
    orders.map((order) => ({ v: -1, order })),
    [],
  );
  return [...found.values()].map(({ order }) => order);
}

/**
 * The state of each order under one identifier, from its head and pages: its newest entry in any
 * of them, live or tombstone (an entry may have been placed in two items by a retried batch; a
 * version is one state of the order, so two entries of one version agree).
 */
function identityStates(items: ReadonlyArray<Record<string, unknown>>): Map<string, OrderEntry> {
  const states = new Map<string, OrderEntry>();
  for (const item of items) {
    for (const [orderId, entry] of Object.entries((item.o ?? {}) as Record<string, OrderEntry>)) {
      const known = states.get(orderId);
      if (!known || known.v < entry.v) states.set(orderId, entry);
    }
  }
  return states;
}

/** The orders given and every live order sharing an identifier with them or with `identities`, transitively, by id with versions. */
async function readIdentityClosure(
  pixelId: string,
  orders: ReadonlyArray<{ v: number; order: QueryOrder }>,
  identities: readonly string[],
): Promise<Map<string, { v: number; order: QueryOrder }>> {
  const found = new Map<string, { v: number; order: QueryOrder }>();
  for (const entry of orders) found.set(entry.order.orderId, entry);
  const fetched = new Set<string>();
  let pending = [...new Set([...identities, ...orders.flatMap(({ order }) => identityKeys(order.customer))])];
  for (let round = 0; pending.length > 0 && round < MAX_IDENTITY_ROUNDS; round++) {
    for (const identity of pending) fetched.add(identity);
    const heads = await batchGet(pending.map((identity) => identityKey(pixelId, identity)), { concurrency: READ_CONCURRENCY });
    const pages = heads.flatMap((head) => Array.from({ length: typeof head.np === 'number' ? head.np : 0 }, (_, page) => identityKey(pixelId, identityOfPk(head.PK as string), page + 1)));
    const items = pages.length > 0 ? [...heads, ...(await batchGet(pages, { concurrency: READ_CONCURRENCY }))] : heads;
    for (const group of Map.groupBy(items, (item) => item.PK as string).values()) {
      for (const [orderId, entry] of identityStates(group)) {
        if (entry.f === undefined) continue;
        const known = found.get(orderId);
        if (!known || known.v < entry.v) found.set(orderId, { v: entry.v, order: decodeFact(orderId, entry.f) });
      }
    }
    pending = [...new Set([...found.values()].flatMap(({ order }) => identityKeys(order.customer)))].filter((identity) => !fetched.has(identity));
  }
  return found;
}
