import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { QueryOrder } from '../../shared/analytics/query-data';
import { customerDigests, customerKeys } from '../../shared/orders/counting-rules';
import type { Order } from '../../shared/orders/order';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import {
  applyOrders,
  DAY_COPY_MAX_BYTES,
  dayCopyAttributes,
  encodeFact,
  MAX_DIGEST_ORDERS,
  readOrderFacts,
  readOrdersPlaced,
  readOrdersRefunded,
  toQueryOrder,
} from '../../shared/store/query-read-models';
import { useFreshTable } from '../support/fresh-table';
import { largeDayOrder } from '../support/large-day-orders';

beforeAll(async () => {
  await useFreshTable();
});

const DAY = (date: string) => Date.parse(`${date}T00:00:00Z`);
const HOUR = 3_600_000;
const DAYS = ['2026-05-01', '2026-05-02', '2026-05-03'];

/** A varied order: shared customers, missing values, tags, refunds on later days, items with and without SKU or cost. */
function variedOrder(index: number): Order {
  const dayStart = DAY(DAYS[index % 3]!) + (index % 2 === 0 ? 0 : 86_400_000 * 0);
  const orderDate = new Date(dayStart + ((index * 7_919_000) % 86_400_000) + (index % 5)).toISOString();
  const customer = index % 7;
  return {
    orderId: `o-${String(index).padStart(3, '0')}`,
    orderDate,
    value: index % 11 === 0 ? null : 10 + index * 1.25,
    currency: index % 13 === 0 ? null : index % 4 === 0 ? 'EUR' : 'USD',
    sourceName: index % 9 === 0 ? null : ['web', 'pos', 'app'][index % 3]!,
    tags: index % 3 === 0 ? ['vip', `t${index % 2}`] : index % 5 === 0 ? ['vip'] : [],
    paymentGateway: index % 8 === 0 ? null : ['stripe', 'paypal'][index % 2]!,
    financialStatus: (['paid', 'pending', 'refunded', 'partially_refunded', 'voided'] as const)[index % 5]!,
    refunds: index % 4 === 1 ? [{ amount: 5, processedAt: new Date(Date.parse(orderDate) + 30 * HOUR).toISOString() }, { amount: 2.5, processedAt: new Date(Date.parse(orderDate) + 2 * HOUR).toISOString() }] : [],
    customer:
      index % 10 === 9
        ? { emailHashes: [], phoneHashes: [], userIds: [] }
        : { emailHashes: [`e${customer}`], phoneHashes: customer % 2 === 0 ? [`p${customer}`] : [], userIds: index % 2 === 0 ? [`u${customer}`] : [] },
    ...(index % 6 === 0 ? {} : { items: [{ ...(index % 4 === 0 ? {} : { sku: `S${index % 3}` }), quantity: 1 + (index % 2), price: 7.5, ...(index % 3 === 0 ? {} : { cost: 2 }) }] }),
    ...(index % 5 === 2 ? { shippingCost: 4.5 } : {}),
    createdAt: orderDate,
    updatedAt: orderDate,
  } as Order;
}

/** What a lean read gives of a whole fact: identifiers dropped where the digest is usable, only the parts asked for. */
function expected(order: QueryOrder, parts: { costs: boolean; customers: boolean }): QueryOrder {
  const { customerDigest, items, shippingCost, ...rest } = order;
  const lean: QueryOrder = customerDigest && customerDigest.earlier !== null ? { ...rest, customer: { userIds: [], emailHashes: [], phoneHashes: [] } } : { ...rest };
  if (parts.customers && customerDigest) lean.customerDigest = customerDigest;
  if (parts.costs && items) lean.items = items;
  if (parts.costs && shippingCost !== undefined) lean.shippingCost = shippingCost;
  return lean;
}

const byId = (orders: readonly QueryOrder[]) => [...orders].sort((a, b) => (a.orderId < b.orderId ? -1 : 1));
/**
 * Orders as plain data; `orderTime` (the day copies give it) checked against `orderDate` and left
 * out. A day copy's `orderDate` is a getter, which a spread does not copy: read explicitly.
 */
const plain = (orders: readonly QueryOrder[]) =>
  JSON.parse(
    JSON.stringify(
      byId(orders).map((original) => {
        const { orderTime, ...order } = original;
        if (orderTime !== undefined) expect(orderTime).toBe(Date.parse(original.orderDate));
        return { ...order, orderDate: original.orderDate };
      }),
    ),
  ) as QueryOrder[];

/** Checks every combination of parts over `[from, to)` against the shards' whole copies. */
async function expectSameAsShards(pixel: string, from: number, to: number): Promise<void> {
  const [placed, refunded] = await Promise.all([readOrdersPlaced(pixel, from, to), readOrdersRefunded(pixel, from, to)]);
  expect(placed.length).toBeGreaterThan(0);
  for (const costs of [false, true]) {
    for (const customers of [false, true]) {
      for (const withRefunds of [false, true]) {
        const read = await readOrderFacts(pixel, from, to, { refunded: withRefunds, costs, customers });
        expect(plain(read.placed)).toEqual(plain(placed.map((order) => expected(order, { costs, customers }))));
        expect(plain(read.refunded)).toEqual(withRefunds ? plain(refunded.map((order) => expected(order, { costs, customers }))) : []);
      }
    }
  }
}

const dayCopyKey = (pixel: string, day: string) => ({ PK: `PIXEL#${pixel}#QD#${day}`, SK: 'COLS' });
const getDayCopy = async (pixel: string, day: string) => (await documentClient.send(new GetCommand({ TableName: tableName(), Key: dayCopyKey(pixel, day), ConsistentRead: true }))).Item;

describe('the columnar day copies of the order facts', () => {
  const pixel = 'px_day_copies';
  const orders = Array.from({ length: 60 }, (_, index) => variedOrder(index));
  // Customer 3 with more orders than a digest lists: its later orders carry a cut digest and their identifiers.
  const regular = Array.from({ length: MAX_DIGEST_ORDERS + 4 }, (_, index) => ({
    ...variedOrder(index),
    orderId: `r-${String(index).padStart(3, '0')}`,
    customer: { emailHashes: ['e-regular'], phoneHashes: [], userIds: [] },
  }));

  it('give what the shards give, for every part and range, after batches, duplicates, a moved order and a deletion', { timeout: 120_000 }, async () => {
    const all = [...orders, ...regular].map((order) => ({ order, version: 1 }));
    for (let start = 0; start < all.length; start += 25) await applyOrders(pixel, all.slice(start, start + 25));
    await applyOrders(pixel, all.slice(0, 10));
    // Moved to another day, and deleted.
    await applyOrders(pixel, [{ order: { ...orders[4]!, orderDate: '2026-05-03T23:30:00.000Z', value: 999 }, version: 2 }], [{ orderId: orders[5]!.orderId, version: 2 }]);
    for (const day of DAYS) {
      const copy = await getDayCopy(pixel, day);
      expect(copy?.done).toBe(copy?.want);
      expect(copy?.c).toBeInstanceOf(Uint8Array);
    }
    await expectSameAsShards(pixel, DAY('2026-05-01'), DAY('2026-05-05'));
    // Ranges that cut days: orders and refunds outside them are left out.
    await expectSameAsShards(pixel, DAY('2026-05-01') + 7 * HOUR, DAY('2026-05-03') + 5 * HOUR);
    const { placed } = await readOrderFacts(pixel, DAY('2026-05-01'), DAY('2026-05-05'), { refunded: false, costs: true, customers: true });
    expect(placed.find((order) => order.orderId === orders[4]!.orderId)?.value).toBe(999);
    expect(placed.some((order) => order.orderId === orders[5]!.orderId)).toBe(false);
    expect(placed.filter((order) => order.customerDigest?.earlier === null).length).toBeGreaterThan(0);
  });

  it('are passed over for the shards while marked behind a change, or when a day does not fit', async () => {
    const day = '2026-05-02';
    const current = await getDayCopy(pixel, day);
    const empty = dayCopyAttributes(day, []);
    // A change begun and not packed yet, over a copy that no longer holds the day's orders.
    await documentClient.send(
      new UpdateCommand({ TableName: tableName(), Key: dayCopyKey(pixel, day), UpdateExpression: 'SET c = :c, d = :d ADD want :one', ExpressionAttributeValues: { ...('c' in empty ? { ':c': empty.c, ':d': empty.d } : {}), ':one': 1 } }),
    );
    await expectSameAsShards(pixel, DAY(day), DAY(day) + 86_400_000);
    // A day over the size cap keeps only its change counts.
    expect(dayCopyAttributes(day, [], 10)).toEqual({ x: 1 });
    await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...dayCopyKey(pixel, day), want: current!.want, done: current!.want, x: 1 } }));
    await expectSameAsShards(pixel, DAY(day), DAY(day) + 86_400_000);
  });

  it('read no orders of a day that has no day copy (written before the layout: rebuild-read-models writes it)', async () => {
    const old = 'px_day_copies_old';
    await applyOrders(old, [{ order: orders[0]!, version: 1 }]);
    const day = orders[0]!.orderDate.slice(0, 10);
    expect((await readOrderFacts(old, DAY(day), DAY(day) + 86_400_000, { refunded: true, costs: true, customers: true })).placed).toHaveLength(1);
    await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...dayCopyKey(old, day), want: 1, done: 1, ...dayCopyAttributes(day, []) } }));
    expect((await readOrderFacts(old, DAY(day), DAY(day) + 86_400_000, { refunded: true, costs: true, customers: true })).placed).toHaveLength(0);
  });
});

describe('the size of a day copy', () => {
  /** A day of `count` orders of `customers` customers, as its entries with digests. */
  function dayEntries(count: number, customers: number) {
    const dayStart = DAY('2026-03-11');
    const facts = Array.from({ length: count }, (_, index) => toQueryOrder(largeDayOrder(dayStart, index, customers)));
    const customerOf = customerKeys(facts);
    const groups = new Map<string, QueryOrder[]>();
    for (const fact of facts) groups.set(customerOf.get(fact.orderId)!, [...(groups.get(customerOf.get(fact.orderId)!) ?? []), fact]);
    const o: Record<string, { v: number; f: string }> = {};
    const r: Record<string, { v: number; f: string }> = {};
    for (const group of groups.values()) {
      for (const [orderId, digest] of customerDigests(group, MAX_DIGEST_ORDERS)) {
        const fact = group.find((order) => order.orderId === orderId)!;
        o[orderId] = { v: 1, f: encodeFact(fact, digest) };
        if (fact.refunds.length > 0) r[orderId] = o[orderId]!;
      }
    }
    return { o, r };
  }
  const bytes = (copy: ReturnType<typeof dayCopyAttributes>) => ('x' in copy ? Infinity : copy.c.byteLength + copy.d.byteLength + copy.ci.byteLength + copy.di.byteLength);

  it('holds a day of 8,500 orders (two items, two identifiers each) well under the 400 KB item cap', () => {
    const copy = dayCopyAttributes('2026-03-11', [dayEntries(8_500, 4_250)]);
    expect(bytes(copy)).toBeLessThan(DAY_COPY_MAX_BYTES / 2);
  });

  it('holds 8,500 orders of customers with 50 orders each, or falls back to the shards past its cap', () => {
    const copy = dayCopyAttributes('2026-03-11', [dayEntries(8_500, 170)]);
    expect(bytes(copy) <= DAY_COPY_MAX_BYTES || 'x' in copy).toBe(true);
    expect(DAY_COPY_MAX_BYTES).toBeLessThan(400 * 1024 - 1024);
  });
});

