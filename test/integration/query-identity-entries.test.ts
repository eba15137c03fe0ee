import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../shared/orders/order';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { applyOrders, encodeFact, readCustomerHistory, readOrdersPlaced, toQueryOrder, writeInitialReadModels } from '../../shared/store/query-read-models';
import { largeDayOrder } from '../support/large-day-orders';
import { useFreshTable } from '../support/fresh-table';

beforeAll(async () => {
  await useFreshTable();
});

const DAY_MS = 86_400_000;
const DAY = (date: string) => Date.parse(`${date}T00:00:00Z`);
const identityPartition = (pixelId: string, identity: string) => `PIXEL#${pixelId}#QC#${identity}`;

async function partitionItems(pk: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk }, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

describe('orders by customer identifier', () => {
  it('holds any number of orders under one identifier: a customer with 3,000 orders is projected and read whole', async () => {
    const pixel = 'px_id_whale';
    const start = DAY('2024-01-01');
    // One customer (an email hash and a user id), 100 orders a day over 30 days: over 1 MB of
    // entries under each identifier, where one item per identifier held about 1,000.
    const orders = Array.from({ length: 3_000 }, (_, index) => largeDayOrder(start + (index % 30) * DAY_MS, index, 1, `whale-${String(index).padStart(5, '0')}`));
    await writeInitialReadModels(
      pixel,
      orders.map((order) => ({ order, version: 1 })),
      [],
    );
    const newest = largeDayOrder(start + 40 * DAY_MS, 3_000, 1, 'whale-new');
    const changed: Order = { ...orders[1_500]!, value: 1_234.5 };
    await applyOrders(pixel, [
      { order: newest, version: 1 },
      { order: changed, version: 2 },
    ]);

    const emailItems = await partitionItems(identityPartition(pixel, `e:${newest.customer.emailHashes[0]}`));
    expect(emailItems).toHaveLength(3_001);
    const history = await readCustomerHistory(pixel, [toQueryOrder(newest)]);
    expect(history).toHaveLength(3_001);
    expect(history.find((order) => order.orderId === changed.orderId)?.value).toBe(1_234.5);
    // The new order's day entry names the customer by their first order, and its digest is cut
    // (over 50 earlier orders): a query reads the history above to count it.
    const [placed] = await readOrdersPlaced(pixel, start + 40 * DAY_MS, start + 41 * DAY_MS);
    expect(placed?.customerDigest).toEqual({ customerId: 'whale-00000', earlier: null });
  }, 120_000);

  it('reads identity items of the earlier layout (a map of entries in one FACTS item) beside entry items, the newest version winning', async () => {
    const pixel = 'px_id_upgrade';
    const customer = { emailHashes: ['e-old'], phoneHashes: [], userIds: [] };
    const base = (orderId: string, orderDate: string, fields: Partial<Order> = {}): Order => ({
      orderId,
      orderDate,
      value: 10,
      currency: 'USD',
      sourceName: 'web',
      tags: [],
      paymentGateway: 'stripe',
      financialStatus: 'paid',
      refunds: [],
      customer,
      createdAt: orderDate,
      updatedAt: orderDate,
      ...fields,
    });
    const kept = base('kept', '2026-01-01T10:00:00.000Z');
    const revalued = base('revalued', '2026-01-02T10:00:00.000Z');
    const leaving = base('leaving', '2026-01-03T10:00:00.000Z');
    // As the earlier layout left them: one item per identifier, pointers naming it.
    const legacyPk = identityPartition(pixel, 'e:e-old');
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: { PK: legacyPk, SK: 'FACTS', o: Object.fromEntries([kept, revalued, leaving].map((order) => [order.orderId, { v: 1, f: encodeFact(toQueryOrder(order)) }])) },
      }),
    );
    for (const order of [kept, revalued, leaving]) {
      const dayPk = `PIXEL#${pixel}#QO#${order.orderDate.slice(0, 10)}`;
      await documentClient.send(new PutCommand({ TableName: tableName(), Item: { PK: `PIXEL#${pixel}#QP#${order.orderId}`, SK: 'POINTER', v: 1, keys: [`${dayPk}#0\nFACTS`, `${legacyPk}\nFACTS`] } }));
    }

    await applyOrders(pixel, [
      { order: { ...revalued, value: 99 }, version: 2 },
      { order: { ...leaving, customer: { emailHashes: ['e-new'], phoneHashes: [], userIds: [] } }, version: 2 },
    ]);

    const history = await readCustomerHistory(pixel, [toQueryOrder(kept)]);
    expect(history.map((order) => [order.orderId, order.value]).sort()).toEqual([
      ['kept', 10],
      ['revalued', 99],
    ]);
    // The order that left the identifier is tombstoned in the map it was in, and found under its new one.
    const legacy = (await partitionItems(legacyPk)).find((item) => item.SK === 'FACTS');
    expect((legacy?.o as Record<string, { v: number; f?: string }>).leaving).toEqual({ v: 2 });
    expect((await readCustomerHistory(pixel, [toQueryOrder({ ...leaving, customer: { emailHashes: ['e-new'], phoneHashes: [], userIds: [] } })])).map((order) => order.orderId)).toEqual(['leaving']);
  });

  it('a deleted order and an order that leaves an identifier leave tombstone items that every read skips', async () => {
    const pixel = 'px_id_tombstones';
    const customer = { emailHashes: ['e1'], phoneHashes: [], userIds: ['u1'] };
    const make = (orderId: string, day: string, fields: Partial<Order> = {}): Order => ({
      orderId,
      orderDate: `${day}T10:00:00.000Z`,
      value: 10,
      currency: 'USD',
      sourceName: 'web',
      tags: [],
      paymentGateway: 'stripe',
      financialStatus: 'paid',
      refunds: [],
      customer,
      createdAt: `${day}T10:00:00.000Z`,
      updatedAt: `${day}T10:00:00.000Z`,
      ...fields,
    });
    const a = make('a', '2026-02-01');
    const b = make('b', '2026-02-02');
    const c = make('c', '2026-02-03');
    await applyOrders(pixel, [a, b, c].map((order) => ({ order, version: 1 })));
    // b drops the email (keeps the user id), c is deleted; a late, older delivery of c changes nothing.
    await applyOrders(pixel, [{ order: { ...b, customer: { emailHashes: [], phoneHashes: [], userIds: ['u1'] } }, version: 2 }], [{ orderId: 'c', version: 2 }]);
    await applyOrders(pixel, [{ order: c, version: 1 }]);

    const underEmail = await partitionItems(identityPartition(pixel, 'e:e1'));
    expect(underEmail.map((item) => [item.SK, item.v, item.f === undefined ? 'tombstone' : 'live']).sort()).toEqual([
      ['O#a', 1, 'live'],
      ['O#b', 2, 'tombstone'],
      ['O#c', 2, 'tombstone'],
    ]);
    expect((await readCustomerHistory(pixel, [toQueryOrder(a)])).map((order) => order.orderId).sort()).toEqual(['a', 'b']);
  });
});
