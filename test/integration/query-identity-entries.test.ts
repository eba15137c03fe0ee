import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Order } from '../../shared/orders/order';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { applyOrders, IDENTITY_PAGE_BYTES, readCustomerHistory, readOrdersPlaced, toQueryOrder, writeInitialReadModels } from '../../shared/store/query-read-models';
import { largeDayOrder } from '../support/large-day-orders';
import { useFreshTable } from '../support/fresh-table';
import { storedOrder } from '../support/order-fixtures';

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
  const entriesOf = (items: ReadonlyArray<Record<string, unknown>>) => items.flatMap((item) => Object.entries((item.o ?? {}) as Record<string, { v: number; f?: string }>));
  const pageOf = (items: ReadonlyArray<Record<string, unknown>>, orderId: string) => items.filter((item) => (item.o as Record<string, unknown> | undefined)?.[orderId] !== undefined).map((item) => item.SK);

  it('holds any number of orders under one identifier: a customer with 3,000 orders is projected and read whole, their entries over a head and pages', async () => {
    const pixel = 'px_id_whale';
    const start = DAY('2024-01-01');
    // One customer (an email hash and a user id), 100 orders a day over 30 days: about 1 MB of
    // entries under each identifier, where one item per identifier held about 1,000.
    const orders = Array.from({ length: 3_000 }, (_, index) => largeDayOrder(start + (index % 30) * DAY_MS, index, 1, `whale-${String(index).padStart(5, '0')}`));
    await writeInitialReadModels(
      pixel,
      orders.map((order) => ({ order, version: 1 })),
    );
    const email = identityPartition(pixel, `e:${orders[0]!.customer.emailHashes[0]}`);
    const seeded = await partitionItems(email);
    expect(seeded.length).toBeGreaterThan(3);
    expect(seeded.find((item) => item.SK === 'FACTS')?.np).toBe(seeded.length - 1);

    // Through the projector: 400 more orders (new pages open), one order of a middle page
    // revalued, one leaving the identifier (its email changed), and one deleted.
    const more = Array.from({ length: 400 }, (_, index) => largeDayOrder(start + 40 * DAY_MS, 3_000 + index, 1, `whale-new-${String(index).padStart(3, '0')}`));
    const middle = orders[1_500]!;
    const leaving = orders[1_501]!;
    await applyOrders(
      pixel,
      [
        ...more.map((order) => ({ order, version: 1 })),
        { order: { ...middle, value: 1_234.5 }, version: 2 },
        { order: { ...leaving, customer: { ...leaving.customer, emailHashes: ['someone-else'], userIds: ['someone-else'], phoneHashes: [] } }, version: 2 },
      ],
      [{ orderId: orders[1_502]!.orderId, version: 2 }],
    );

    const items = await partitionItems(email);
    expect(items.find((item) => item.SK === 'FACTS')?.np).toBe(items.length - 1);
    expect(items.length).toBeGreaterThan(seeded.length);
    for (const item of items) expect(entriesOf([item]).reduce((bytes, [orderId, entry]) => bytes + orderId.length + (entry.f?.length ?? 0), 0)).toBeLessThanOrEqual(IDENTITY_PAGE_BYTES);
    // A new version is written where the order's entry was.
    expect(pageOf(items, middle.orderId)).toEqual(pageOf(seeded, middle.orderId));
    const history = await readCustomerHistory(pixel, [toQueryOrder(more[0]!)]);
    expect(history).toHaveLength(3_000 + 400 - 2);
    expect(history.find((order) => order.orderId === middle.orderId)?.value).toBe(1_234.5);
    expect(history.map((order) => order.orderId)).not.toContain(leaving.orderId);
    expect(history.map((order) => order.orderId)).not.toContain(orders[1_502]!.orderId);
    // A new order's day entry names the customer by their first order, its digest cut (over 50
    // earlier orders): a query reads the history above to count it.
    const placed = (await readOrdersPlaced(pixel, start + 40 * DAY_MS, start + 41 * DAY_MS)).find((order) => order.orderId === more[0]!.orderId);
    expect(placed?.customerDigest).toEqual({ customerId: 'whale-00000', earlier: null });
  }, 180_000);

  it('a deleted order and an order that leaves an identifier leave tombstones that every read skips; an older delivery changes nothing', async () => {
    const pixel = 'px_id_tombstones';
    const customer = { emailHashes: ['e1'], phoneHashes: [], userIds: ['u1'] };
    const make = (orderId: string, day: string): Order => storedOrder(orderId, { orderDate: `${day}T10:00:00.000Z`, customer });
    const a = make('a', '2026-02-01');
    const b = make('b', '2026-02-02');
    const c = make('c', '2026-02-03');
    await applyOrders(pixel, [a, b, c].map((order) => ({ order, version: 1 })));
    // b drops the email (keeps the user id), c is deleted; a late, older delivery of c changes nothing.
    await applyOrders(pixel, [{ order: { ...b, customer: { emailHashes: [], phoneHashes: [], userIds: ['u1'] } }, version: 2 }], [{ orderId: 'c', version: 2 }]);
    await applyOrders(pixel, [{ order: c, version: 1 }]);

    const underEmail = entriesOf(await partitionItems(identityPartition(pixel, 'e:e1')));
    expect(underEmail.map(([orderId, entry]) => [orderId, entry.v, entry.f === undefined ? 'tombstone' : 'live']).sort()).toEqual([
      ['a', 1, 'live'],
      ['b', 2, 'tombstone'],
      ['c', 2, 'tombstone'],
    ]);
    expect((await readCustomerHistory(pixel, [toQueryOrder(a)])).map((order) => order.orderId).sort()).toEqual(['a', 'b']);
  });
});
