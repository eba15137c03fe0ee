import { beforeAll, describe, expect, it } from 'vitest';
import type { QueryOrder } from '../../shared/analytics/query-data';
import type { Order } from '../../shared/orders/order';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  applyEventCounts,
  applyEvents,
  applyOrders,
  encodeFact,
  ORDER_SHARDS,
  querySharding,
  readCustomerHistory,
  readEventCounts,
  readEventFacts,
  readOrdersPlaced,
  readOrdersRefunded,
  toQueryOrder,
} from '../../shared/store/query-read-models';
import { pageKey, writeEventPages, type EventPage } from '../../shared/store/event-repository';
import type { StoredEvent } from '../../shared/tracking/stored-event';
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

describe('event read model', () => {
  it('keeps each event once however often it is applied', async () => {
    const pixel = 'px_rm_events';
    const event = (eventId: string, timestamp: string, extra: Partial<StoredEvent> = {}): StoredEvent => ({
      eventId,
      eventIdSource: 'client',
      name: 'page_view',
      standard: true,
      timestamp,
      receivedAt: timestamp,
      ...extra,
    });
    const events = [
      event('e1', '2026-03-01T23:59:59.999Z', { utm: { utm_source: 'google' }, click: { fbp: 'fb.1' } }),
      event('e2', '2026-03-02T00:00:00.000Z', { name: 'purchase', user: { userIds: ['u1'] } }),
    ];
    const entry = { entryId: '01KFACTS0001', events };
    await applyEvents(pixel, [entry]);
    await applyEvents(pixel, [{ ...entry, events: [events[1]!, events[0]!] }]);
    const read = await readEventFacts(pixel, DAY('2026-03-01'), DAY('2026-03-03'));
    expect(read.sort((a, b) => a.at - b.at)).toEqual([
      { eventId: 'e1', at: Date.parse('2026-03-01T23:59:59.999Z'), name: 'page_view', utmSource: 'google', utmMedium: null, utmCampaign: null, identities: ['f:fb.1'] },
      { eventId: 'e2', at: DAY('2026-03-02'), name: 'purchase', utmSource: null, utmMedium: null, utmCampaign: null, identities: ['u:u1'] },
    ]);
    expect(await readEventFacts(pixel, DAY('2026-03-02'), DAY('2026-03-03'))).toHaveLength(1);
  });
});

describe('event rollups', () => {
  it('count each event once, by UTC hour, name and UTM values, however often and in whatever order events are applied', async () => {
    const pixel = 'px_rm_rollups';
    const event = (eventId: string, timestamp: string, name: string, source?: string): StoredEvent => ({
      eventId, eventIdSource: 'client', name, standard: true, timestamp, receivedAt: timestamp, ...(source ? { utm: { utm_source: source } } : {}),
    });
    const events = [
      event('r1', '2026-05-01T10:05:00.000Z', 'page_view', 'google'),
      event('r2', '2026-05-01T10:55:00.000Z', 'page_view', 'google'),
      event('r3', '2026-05-01T11:00:00.000Z', 'purchase'),
      event('r4', '2026-05-02T00:00:00.000Z', 'page_view'),
    ];
    // Two log entries, projected again and in either order, one of them split as two batches.
    const first = { entryId: '01KROLLUP0001', acceptedAt: '2026-05-02T00:00:01.000Z', events: [events[2]!, events[0]!], superseded: [] };
    const second = { entryId: '01KROLLUP0002', acceptedAt: '2026-05-02T00:00:02.000Z', events: [events[1]!, events[3]!], superseded: [] };
    await applyEventCounts(pixel, [second]);
    await applyEventCounts(pixel, [first, second]);
    await applyEventCounts(pixel, [first]);
    const counts = await readEventCounts(pixel, DAY('2026-05-01'), DAY('2026-05-03'));
    expect(counts.map(({ at, name, utmSource, count }) => [new Date(at).toISOString(), name, utmSource, count]).sort()).toEqual([
      ['2026-05-01T10:00:00.000Z', 'page_view', 'google', 2],
      ['2026-05-01T11:00:00.000Z', 'purchase', null, 1],
      ['2026-05-02T00:00:00.000Z', 'page_view', null, 1],
    ]);
  });
});

describe('event rollups under superseded deliveries', () => {
  it('take back a delivery that was counted exactly once, and never one that was not', async () => {
    const pixel = 'px_rm_superseded';
    const event = (eventId: string, timestamp: string, name: string): StoredEvent => ({ eventId, eventIdSource: 'client', name, standard: true, timestamp, receivedAt: timestamp });
    const page = (entryId: string, events: StoredEvent[], superseded: string[] = []): EventPage => ({
      key: pageKey(pixel, '2026-07-01', entryId),
      entryId,
      acceptedAt: '2026-07-01T12:00:00.000Z',
      events,
      superseded,
      ttl: 2_000_000_000,
    });
    const late = event('dup', '2026-07-01T10:30:00.000Z', 'page_view');
    const early = event('dup', '2026-07-01T09:15:00.000Z', 'purchase');
    const other = event('solo', '2026-07-01T10:40:00.000Z', 'page_view');
    const again = event('dup', '2026-07-01T10:50:00.000Z', 'add_to_cart');
    // L (a later delivery of "dup") is projected first and counted; L2 repeats it and loses to L.
    await writeEventPages([page('01KL', [late, other]), page('01KL2', [again], ['dup'])]);
    const projectedL = { entryId: '01KL', acceptedAt: '2026-07-01T12:00:00.000Z', events: [late, other], superseded: [] };
    await applyEventCounts(pixel, [projectedL, { entryId: '01KL2', acceptedAt: '2026-07-01T12:00:00.000Z', events: [], lost: [again], superseded: [] }]);
    // W, earlier in the log, wins "dup": L's and L2's deliveries are reported superseded (L2's was never counted).
    await writeEventPages([page('01KL', [late, other], ['dup']), page('01KW', [early])]);
    const projectedW = {
      entryId: '01KW',
      acceptedAt: '2026-07-01T11:00:00.000Z',
      events: [early],
      superseded: [{ entryId: '01KL', eventId: 'dup', day: '2026-07-01' }, { entryId: '01KL2', eventId: 'dup', day: '2026-07-01' }],
    };
    await applyEventCounts(pixel, [projectedW]);
    await applyEventCounts(pixel, [projectedW]);
    // L projected again (a retry) now loses "dup" itself.
    await applyEventCounts(pixel, [{ ...projectedL, events: [other], lost: [late] }]);
    const counts = await readEventCounts(pixel, DAY('2026-07-01'), DAY('2026-07-02'));
    expect(counts.map(({ at, name, count }) => [new Date(at).toISOString(), name, count]).sort()).toEqual([
      ['2026-07-01T09:00:00.000Z', 'purchase', 1],
      ['2026-07-01T10:00:00.000Z', 'page_view', 1],
    ]);
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
