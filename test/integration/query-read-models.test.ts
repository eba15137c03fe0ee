import { beforeAll, describe, expect, it } from 'vitest';
import type { QueryOrder } from '../../shared/analytics/query-data';
import type { Order } from '../../shared/orders/order';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  applyOrders,
  encodeFact,
  ORDER_SHARDS,
  querySharding,
  readCustomerHistory,
  readOrdersPlaced,
  readOrdersRefunded,
  toQueryOrder,
} from '../../shared/store/query-read-models';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { useFreshTable } from '../support/fresh-table';
import { storedOrder as order } from '../support/order-fixtures';

beforeAll(async () => {
  await useFreshTable();
});

const DAY = (date: string) => Date.parse(`${date}T00:00:00Z`);
/** The facts without the customer digest the day items add (compared on their own below). */
const facts = (orders: readonly QueryOrder[]) => orders.map(({ customerDigest: _digest, ...fact }) => fact);
const counting = (o: Order) => ({ financialStatus: o.financialStatus, sourceName: o.sourceName, tags: o.tags, value: o.value, paymentGateway: o.paymentGateway });

describe('order read models', () => {
  it('keep one entry per order, the newest version, under duplicates, reordering and a moved order date', async () => {
    const pixel = 'px_rm_orders';
    const v1 = { order: order('o1', { refunds: [{ amount: 10, processedAt: '2026-03-03T09:00:00.000Z' }] }), version: 1 };
    const v2 = { order: order('o1', { orderDate: '2026-03-02T10:00:00.000Z', value: 80, refunds: [] }), version: 2 };
    await applyOrders(pixel, [v1]);
    await applyOrders(pixel, [v1]);
    await applyOrders(pixel, [v2]);
    // A late, older delivery changes nothing.
    await applyOrders(pixel, [v1]);

    expect(await readOrdersPlaced(pixel, DAY('2026-03-01'), DAY('2026-03-02'))).toEqual([]);
    expect(facts(await readOrdersPlaced(pixel, DAY('2026-03-01'), DAY('2026-03-04')))).toEqual([toQueryOrder(v2.order)]);
    expect(await readOrdersRefunded(pixel, DAY('2026-03-01'), DAY('2026-03-10'))).toEqual([]);
  });

  it('the same states applied in any order give the same read model', async () => {
    const states = [1, 2, 3].map((version) => ({
      order: order('o9', { orderDate: `2026-04-0${version}T10:00:00.000Z`, refunds: [{ amount: version, processedAt: `2026-04-0${version + 1}T10:00:00.000Z` }] }),
      version,
    }));
    for (const [pixel, sequence] of [
      ['px_rm_a', [0, 1, 2]],
      ['px_rm_b', [2, 0, 1]],
      ['px_rm_c', [1, 2, 0, 2, 1]],
    ] as const) {
      for (const index of sequence) await applyOrders(pixel, [states[index]!]);
      expect(facts(await readOrdersPlaced(pixel, DAY('2026-04-01'), DAY('2026-04-10')))).toEqual([toQueryOrder(states[2]!.order)]);
      expect(facts(await readOrdersRefunded(pixel, DAY('2026-04-01'), DAY('2026-04-10')))).toEqual([toQueryOrder(states[2]!.order)]);
    }
  });

  it('finds a customer’s whole history through linked identifiers, outside the range too', async () => {
    const pixel = 'px_rm_customers';
    await applyOrders(pixel, [
      { order: order('a', { orderDate: '2025-01-01T00:00:00.000Z', customer: { emailHashes: ['e1'], phoneHashes: [], userIds: [] } }), version: 1 },
      { order: order('c', { orderDate: '2027-01-01T00:00:00.000Z', customer: { emailHashes: ['e1'], phoneHashes: ['p1'], userIds: [] } }), version: 1 },
      { order: order('b', { customer: { emailHashes: [], phoneHashes: ['p1'], userIds: [] } }), version: 1 },
      { order: order('x', { customer: { emailHashes: [], phoneHashes: [], userIds: ['someone-else'] } }), version: 1 },
    ]);
    const inRange = await readOrdersPlaced(pixel, DAY('2026-03-01'), DAY('2026-03-02'));
    expect(inRange.map((o) => o.orderId).sort()).toEqual(['b', 'x']);
    const history = await readCustomerHistory(pixel, inRange.filter((o) => o.orderId === 'b'));
    expect(history.map((o) => o.orderId).sort()).toEqual(['a', 'b', 'c']);
  });

  it('give each day entry its customer digest, kept current as the customer gains, changes and loses orders', async () => {
    const pixel = 'px_rm_digests';
    const email = (hash: string) => ({ emailHashes: [hash], phoneHashes: [], userIds: [] });
    const a = order('a', { orderDate: '2025-01-01T00:00:00.000Z', financialStatus: 'pending', customer: email('e1') });
    const b = order('b', { customer: { emailHashes: [], phoneHashes: ['p1'], userIds: [] } });
    const days: Record<string, string> = { a: '2025-01-01', b: '2026-03-01', c: '2027-01-01' };
    const digestOf = async (orderId: string) => (await readOrdersPlaced(pixel, DAY(days[orderId]!), DAY(days[orderId]!) + 86_400_000)).find((o) => o.orderId === orderId)?.customerDigest;
    await applyOrders(pixel, [{ order: b, version: 1 }]);
    expect(await digestOf('b')).toEqual({ customerId: 'b', earlier: [] });
    await applyOrders(pixel, [{ order: a, version: 1 }]);
    // Not linked yet: two customers.
    expect(await digestOf('a')).toEqual({ customerId: 'a', earlier: [] });
    expect(await digestOf('b')).toEqual({ customerId: 'b', earlier: [] });
    // A later order with both identifiers joins them: b now has a before it.
    const c = order('c', { orderDate: '2027-01-01T00:00:00.000Z', customer: { emailHashes: ['e1'], phoneHashes: ['p1'], userIds: [] } });
    await applyOrders(pixel, [{ order: c, version: 1 }]);
    expect(await digestOf('b')).toEqual({ customerId: 'a', earlier: [counting(a)] });
    expect(await digestOf('c')).toEqual({ customerId: 'a', earlier: [counting(a), counting(b)] });
    // a changes: every later order of the customer sees it.
    const paidA = { ...a, financialStatus: 'paid' as const };
    await applyOrders(pixel, [{ order: paidA, version: 2 }]);
    expect(await digestOf('c')).toEqual({ customerId: 'a', earlier: [counting(paidA), counting(b)] });
    // c is deleted: a and b are two customers again.
    await applyOrders(pixel, [], [{ orderId: 'c', version: 2 }]);
    expect(await digestOf('c')).toBeUndefined();
    expect(await digestOf('b')).toEqual({ customerId: 'b', earlier: [] });
    // A stale state of c changes nothing.
    await applyOrders(pixel, [{ order: c, version: 1 }]);
    expect(await digestOf('b')).toEqual({ customerId: 'b', earlier: [] });
  });
});

describe('order read models under any delivery order (property)', () => {
  it('end in the newest version’s facts whatever the order, repetition and grouping of deliveries', async () => {
    const { default: fc } = await import('fast-check');
    const dates = ['2026-06-01T10:00:00.000Z', '2026-06-02T10:00:00.000Z', '2026-06-03T23:30:00.000Z'];
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ date: fc.constantFrom(...dates), refund: fc.option(fc.constantFrom(...dates)), email: fc.constantFrom('a', 'b') }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 8 }),
        async (states, picks) => {
          const pixel = `px_rm_prop_${run++}`;
          const versions = states.map((state, i) => ({
            order: order('p1', {
              orderDate: state.date,
              refunds: state.refund ? [{ amount: 1, processedAt: state.refund }] : [],
              customer: { emailHashes: [state.email], phoneHashes: [], userIds: [] },
            }),
            version: i + 1,
          }));
          // Deliveries: random picks (duplicates, any order), then the newest at some point.
          const deliveries = [...picks.map((pick) => versions[pick % versions.length]!), versions.at(-1)!, ...picks.slice(0, 2).map((pick) => versions[pick % versions.length]!)];
          for (const delivery of deliveries) await applyOrders(pixel, [delivery]);
          const newest = toQueryOrder(versions.at(-1)!.order);
          expect(facts(await readOrdersPlaced(pixel, DAY('2026-06-01'), DAY('2026-06-05')))).toEqual([newest]);
          expect(facts(await readOrdersRefunded(pixel, DAY('2026-06-01'), DAY('2026-06-05')))).toEqual(newest.refunds.length > 0 ? [newest] : []);
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);

  it('sets a batch’s entries of one day item together, and keeps an entry another writer made newer meanwhile', async () => {
    const pixel = 'px_rm_grouped';
    // Two orders of one customer in the same day item: the second's projection rewrites both entries (fresh digests) in one call.
    const ids = Array.from({ length: 64 }, (_, i) => `g${i}`);
    const [first, second] = ids.filter((id) => querySharding(id, ORDER_SHARDS) === querySharding(ids[0]!, ORDER_SHARDS));
    const customer = { emailHashes: ['grouped'], phoneHashes: [], userIds: [] };
    const a = order(first!, { customer });
    const b = order(second!, { customer, orderDate: '2026-03-01T11:00:00.000Z' });
    await applyOrders(pixel, [{ order: a, version: 1 }]);
    // Another writer (an import beside the drain) stored a newer state of `a` in the day item after this batch read its customer.
    const dayItem = { PK: `PIXEL#${pixel}#QO#2026-03-01#${querySharding(first!, ORDER_SHARDS)}`, SK: 'FACTS' };
    const newer = { v: 5, f: encodeFact(toQueryOrder({ ...a, value: 555 })) };
    await documentClient.send(
      new UpdateCommand({ TableName: tableName(), Key: dayItem, UpdateExpression: 'SET o.#a = :e', ExpressionAttributeNames: { '#a': first! }, ExpressionAttributeValues: { ':e': newer } }),
    );

    await applyOrders(pixel, [{ order: b, version: 1 }]);

    const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: dayItem, ConsistentRead: true }));
    const entries = Item!.o as Record<string, { v: number; f: string }>;
    expect(entries[first!]).toEqual(newer);
    expect(entries[second!]?.v).toBe(1);
  });
});
