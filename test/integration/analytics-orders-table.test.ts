import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOrder, readCustomerHistory, readOrderFacts, readOrders, toQueryOrder, upsertOrders } from '../../shared/analytics/store/order-store';
import { compactPartition, sweepReplacedFiles } from '../../shared/analytics/store/compaction';
import { liveFiles } from '../../shared/analytics/store/partitions';
import { allBuckets, bucketOf, ORDERS_TABLE } from '../../shared/analytics/store/tables';
import { applySources, foldSources, type OrderSource } from '../../shared/orders/order-sources';
import type { OrderUpdate } from '../../shared/orders/order';
import { useFreshTable } from '../support/fresh-table';
import { ANALYTICS_STORES, useDirectoryAnalyticsStore } from '../support/s3-server';

/*
 * The orders table of the analytics store: a row per version of an order, partitioned by a hash
 * of the order id, the highest revision read as the order. Checked against the fold of every
 * statement at once (orders/order-sources.ts), and run on both stores (a directory, and S3
 * through the SDK).
 */
const DAY = 86_400_000;
const START = Date.parse('2026-03-01T00:00:00Z');
const iso = (at: number) => new Date(at).toISOString();

function statement(orderId: string, key: string, at: number, fields: OrderUpdate['fields'], extra: { refunds?: OrderUpdate['refunds']; customer?: Partial<OrderUpdate['customer']> } = {}): OrderSource {
  return {
    key,
    pos: `01KPOS${key}`,
    at: iso(at),
    update: {
      orderId,
      asOf: iso(at),
      fields,
      defaults: { orderDate: iso(at), financialStatus: 'paid' },
      refunds: extra.refunds ?? [],
      customer: { emailHashes: [], phoneHashes: [], userIds: [], ...extra.customer },
    },
  };
}

const whole = { from: new Date(START - 400 * DAY), to: new Date(START + 400 * DAY) };

beforeAll(async () => {
  await useFreshTable();
});
afterAll(useDirectoryAnalyticsStore);

describe.each(ANALYTICS_STORES)('the orders table in $store', ({ store, use }) => {
  const pixel = (name: string) => `px_${store.replace(/\W/g, '')}_${name}`;
  beforeAll(use);

  it('spreads one day\u2019s orders over every bucket, one file each, and reads each order once', async () => {
    const pixelId = pixel('spread');
    const sources = Array.from({ length: 400 }, (_, index) => statement(`o-${index}`, `s-${index}`, START + index * 1000, { value: index, currency: 'USD' }));
    const result = await upsertOrders(pixelId, sources);
    expect(result.created).toBe(400);
    const partitions = await liveFiles(pixelId, ORDERS_TABLE.name, '00', '99');
    expect(partitions.map((partition) => partition.date)).toEqual(allBuckets(ORDERS_TABLE));
    expect(partitions.every((partition) => partition.files.length === 1)).toBe(true);
    const orders = await readOrders(pixelId, new Date(START), new Date(START + DAY));
    expect(orders.map((order) => order.value).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 400 }, (_, index) => index));
  });

  it('moves an order to the date a later statement gives it, keeping its versions in its bucket; retracted, it is gone; stated again, it is back', async () => {
    const pixelId = pixel('move');
    await upsertOrders(pixelId, [statement('m-1', 'first', START, { value: 10, currency: 'USD' })]);
    await upsertOrders(pixelId, [statement('m-1', 'second', START + 60_000, { orderDate: iso(START + 5 * DAY), value: 12 })]);
    expect(await readOrders(pixelId, new Date(START), new Date(START + DAY))).toEqual([]);
    expect(await readOrders(pixelId, new Date(START + 5 * DAY), new Date(START + 6 * DAY))).toMatchObject([{ orderId: 'm-1', value: 12, currency: 'USD' }]);
    expect((await liveFiles(pixelId, ORDERS_TABLE.name, '00', '99')).map((partition) => partition.date)).toEqual([bucketOf(ORDERS_TABLE, 'm-1')]);

    // Every statement taken back (each a later delivery of an event that lost to an earlier one elsewhere).
    const gone = await upsertOrders(pixelId, [], [
      { orderId: 'm-1', key: 'first', beforePos: '0' },
      { orderId: 'm-1', key: 'second', beforePos: '0' },
    ]);
    expect(gone.deleted).toEqual([{ orderId: 'm-1', version: 3 }]);
    expect(await getOrder(pixelId, 'm-1')).toBeUndefined();
    await upsertOrders(pixelId, [statement('m-1', 'third', START + 120_000, { value: 7, currency: 'EUR' })]);
    expect(await getOrder(pixelId, 'm-1')).toMatchObject({ value: 7, currency: 'EUR', orderDate: iso(START + 120_000) });
  });

  it('compacts a bucket to each order\u2019s current version, then removes the replaced files after the grace, answers unchanged', async () => {
    const pixelId = pixel('compact');
    const bucket = bucketOf(ORDERS_TABLE, 'c-1');
    for (let step = 0; step < 6; step++) await upsertOrders(pixelId, [statement('c-1', `step-${step}`, START + step * 60_000, { value: 10 + step, currency: 'USD' })]);
    await upsertOrders(pixelId, [statement('c-1', 'gone', START + 10 * 60_000, { value: 99 })]);
    await upsertOrders(pixelId, [], [{ orderId: 'c-1', key: 'gone', beforePos: '0' }]);
    const before = await readOrders(pixelId, whole.from, whole.to);
    expect(before).toMatchObject([{ orderId: 'c-1', value: 15 }]);
    expect((await liveFiles(pixelId, ORDERS_TABLE.name, bucket, bucket))[0]!.files).toHaveLength(8);

    const report = await compactPartition(ORDERS_TABLE, pixelId, bucket, { mode: 'whole', graceMs: 0 });
    expect(report).toMatchObject({ outcome: 'compacted', filesIn: 8, rows: 1 });
    expect((await liveFiles(pixelId, ORDERS_TABLE.name, bucket, bucket))[0]!.files).toHaveLength(1);
    expect(await readOrders(pixelId, whole.from, whole.to)).toEqual(before);
    // A later write builds on the compacted version.
    await upsertOrders(pixelId, [statement('c-1', 'after', START + 20 * 60_000, { value: 77 })]);
    expect(await getOrder(pixelId, 'c-1')).toMatchObject({ value: 77 });
    await sweepReplacedFiles({ graceMs: 0 });
  });

  it('reads the orders refunded in a range, and a customer\u2019s history through identifiers shared transitively', async () => {
    const pixelId = pixel('readers');
    await upsertOrders(pixelId, [
      statement('a', 'a', START, { value: 10, currency: 'USD' }, { customer: { emailHashes: ['e1'] } }),
      statement('b', 'b', START + 30 * DAY, { value: 20, currency: 'USD' }, { customer: { emailHashes: ['e1'], phoneHashes: ['p1'] } }),
      statement('c', 'c', START + 60 * DAY, { value: 30, currency: 'USD' }, { customer: { phoneHashes: ['p1'], userIds: ['u1'] }, refunds: [{ amount: 5, processedAt: iso(START + 90 * DAY) }] }),
      statement('d', 'd', START + 60 * DAY, { value: 40, currency: 'USD' }, { customer: { userIds: ['someone-else'] } }),
      statement('e', 'e', START + 61 * DAY, { value: 50, currency: 'USD' }),
    ]);
    const refunded = await readOrderFacts(pixelId, START + 90 * DAY, START + 91 * DAY, { refunded: true });
    expect(refunded).toMatchObject({ placed: [], refunded: [{ orderId: 'c' }] });
    const placed = (await readOrderFacts(pixelId, START + 60 * DAY, START + 62 * DAY, { refunded: false })).placed;
    expect(placed.map((order) => order.orderId)).toEqual(['c', 'd', 'e']);
    const history = await readCustomerHistory(pixelId, placed.filter((order) => order.orderId === 'c' || order.orderId === 'e'));
    expect(history.map((order) => order.orderId)).toEqual(['a', 'b', 'c', 'e']);
  });

  it('ends as the fold of every statement at once, whatever the grouping, order and repetition of the writes (fast-check)', async () => {
    let run = 0;
    const statementArbitrary = fc.record({
      order: fc.constantFrom('x', 'y', 'z'),
      minute: fc.integer({ min: 0, max: 3000 }),
      value: fc.integer({ min: 1, max: 500 }),
      status: fc.constantFrom(undefined, 'paid', 'refunded', 'pending'),
      email: fc.constantFrom(undefined, 'e1', 'e2'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(statementArbitrary, { minLength: 1, maxLength: 12 }), fc.array(fc.nat(11), { minLength: 1, maxLength: 20 }), async (specs, schedule) => {
        const pixelId = pixel(`prop${run++}`);
        // One key per statement: a repeat is the schedule handing the same statement again.
        const sources = specs.map((spec, index) =>
          statement(
            spec.order,
            `${spec.order}-${index}`,
            START + spec.minute * 60_000,
            { value: spec.value, ...(spec.status ? { financialStatus: spec.status as 'paid' } : {}) },
            { customer: spec.email ? { emailHashes: [spec.email] } : {} },
          ),
        );
        // In groups of the schedule, repeats included, then everything once more.
        for (let index = 0; index < schedule.length; index += 3) await upsertOrders(pixelId, schedule.slice(index, index + 3).map((at) => sources[at % sources.length]!));
        await upsertOrders(pixelId, sources);
        const expected = [...Map.groupBy(sources, (source) => source.update.orderId)]
          .map(([, mine]) => foldSources(applySources({}, mine, []).merged).order)
          .sort((a, b) => (a.orderDate < b.orderDate || (a.orderDate === b.orderDate && a.orderId < b.orderId) ? -1 : 1));
        expect((await readOrders(pixelId, whole.from, whole.to)).map(toQueryOrder)).toEqual(expected.map(toQueryOrder));
      }),
      { numRuns: 15 },
    );
  }, 300_000);
});
