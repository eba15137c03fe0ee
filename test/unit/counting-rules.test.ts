import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CustomerDigest, QueryOrder } from '../../shared/analytics/query-data';
import {
  conditionMatches,
  countsOrder,
  customerDigests,
  customerKeys,
  firstCountedOrders,
  isCountedStatus,
  metCustomers,
  type CountableOrder,
  type CountingCondition,
  type CountingSettings,
} from '../../shared/orders/counting-rules';

const order: CountableOrder = { financialStatus: 'paid', sourceName: 'Web Shop', tags: ['vip', 'Sale'], value: 50, paymentGateway: 'stripe' };
const bare: CountableOrder = { financialStatus: 'paid', sourceName: null, tags: [], value: null, paymentGateway: null };

describe('counted statuses', () => {
  it.each([
    ['paid', false, false, true],
    ['refunded', false, false, true],
    ['partially_refunded', false, false, true],
    ['pending', false, false, false],
    ['pending', true, false, true],
    ['voided', false, false, false],
    ['voided', false, true, true],
  ] as const)('%s with pending=%s voided=%s counts: %s', (status, countPendingOrders, countVoidedOrders, counted) => {
    expect(isCountedStatus(status, { countPendingOrders, countVoidedOrders })).toBe(counted);
  });
});

describe('every operator of spec 2.4', () => {
  const cases: Array<[CountingCondition, boolean, boolean]> = [
    // [condition, matches `order`, matches `bare` (no values)]
    [{ field: 'sourceName', operator: 'equals', value: 'Web Shop' }, true, false],
    [{ field: 'sourceName', operator: 'equals', value: 'web shop' }, false, false],
    [{ field: 'sourceName', operator: 'not_equals', value: 'pos' }, true, true],
    [{ field: 'sourceName', operator: 'in', value: ['pos', 'Web Shop'] }, true, false],
    [{ field: 'sourceName', operator: 'not_in', value: ['pos'] }, true, true],
    [{ field: 'sourceName', operator: 'contains', value: 'SHOP' }, true, false],
    [{ field: 'sourceName', operator: 'not_contains', value: 'shop' }, false, true],
    [{ field: 'sourceName', operator: 'starts_with', value: 'web' }, true, false],
    [{ field: 'sourceName', operator: 'ends_with', value: 'SHOP' }, true, false],
    [{ field: 'sourceName', operator: 'exists' }, true, false],
    [{ field: 'sourceName', operator: 'not_exists' }, false, true],
    [{ field: 'value', operator: 'equals', value: 50 }, true, false],
    [{ field: 'value', operator: 'equals', value: '50' as unknown as number }, false, false],
    [{ field: 'value', operator: 'not_equals', value: 50 }, false, true],
    [{ field: 'value', operator: 'greater_than', value: 49.99 }, true, false],
    [{ field: 'value', operator: 'greater_than', value: 50 }, false, false],
    [{ field: 'value', operator: 'greater_than_or_equals', value: 50 }, true, false],
    [{ field: 'value', operator: 'less_than', value: 50 }, false, false],
    [{ field: 'value', operator: 'less_than_or_equals', value: 50 }, true, false],
    [{ field: 'tags', operator: 'array_includes', value: 'vip' }, true, false],
    [{ field: 'tags', operator: 'array_includes', value: 'sale' }, false, false],
    [{ field: 'tags', operator: 'array_includes', value: ['vip', 'Sale'] }, true, false],
    [{ field: 'tags', operator: 'array_includes_all', value: ['vip', 'other'] }, false, false],
    [{ field: 'tags', operator: 'array_includes_any', value: ['other', 'Sale'] }, true, false],
    [{ field: 'tags', operator: 'array_includes_any', value: 'other' }, false, false],
    [{ field: 'tags', operator: 'equals', value: 'vip' }, true, false],
    [{ field: 'tags', operator: 'not_equals', value: 'vip' }, false, true],
    [{ field: 'tags', operator: 'exists' }, true, false],
    [{ field: 'paymentGateway', operator: 'in', value: ['stripe'] }, true, false],
    [{ field: 'paymentGateway', operator: 'not_in', value: ['stripe'] }, false, true],
    [{ field: 'paymentGateway', operator: 'array_includes', value: 'stripe' }, true, false],
  ];
  it.each(cases)('%j: order %s, order without values %s', (condition, onOrder, onBare) => {
    expect(conditionMatches(order, condition)).toBe(onOrder);
    expect(conditionMatches(bare, condition)).toBe(onBare);
  });

  it('negated operators are exactly the negations', () => {
    const pairs = [
      ['equals', 'not_equals'],
      ['in', 'not_in'],
      ['contains', 'not_contains'],
      ['exists', 'not_exists'],
    ] as const;
    fc.assert(
      fc.property(
        fc.record({ sourceName: fc.option(fc.constantFrom('web', 'pos', 'Web')), tags: fc.array(fc.constantFrom('a', 'b')), value: fc.option(fc.integer({ min: 0, max: 3 })) }),
        fc.constantFrom(...pairs),
        fc.constantFrom('sourceName', 'tags'),
        (fields, [positive, negative], field) => {
          const subject: CountableOrder = { financialStatus: 'paid', paymentGateway: null, ...fields };
          const value = positive === 'in' ? ['web', 'a'] : field === 'tags' ? 'a' : 'web';
          expect(conditionMatches(subject, { field, operator: negative, value })).toBe(!conditionMatches(subject, { field, operator: positive, value }));
        },
      ),
    );
  });
});

describe('exclusion filters', () => {
  const settings = (conditionGroups: unknown, enabled = true) =>
    ({ countPendingOrders: false, countVoidedOrders: false, refundDateAttribution: 'refund_date', exclusionFilters: [{ enabled, conditionGroups }] }) as never;
  it('a filter matches when any group matches; a group by its logic', () => {
    const web = { field: 'sourceName', operator: 'equals', value: 'Web Shop' };
    const cheap = { field: 'value', operator: 'less_than', value: 10 };
    expect(countsOrder(order, settings([{ logic: 'and', conditions: [web, cheap] }]))).toBe(true);
    expect(countsOrder(order, settings([{ logic: 'or', conditions: [web, cheap] }]))).toBe(false);
    expect(countsOrder(order, settings([{ logic: 'and', conditions: [cheap] }, { logic: 'and', conditions: [web] }]))).toBe(false);
    expect(countsOrder(order, settings([{ logic: 'and', conditions: [web] }], false))).toBe(true);
  });
});

describe('customers', () => {
  const o = (orderId: string, orderDate: string, ids: { u?: string[]; e?: string[]; p?: string[] }, financialStatus: CountableOrder['financialStatus'] = 'paid') => ({
    ...bare,
    financialStatus,
    orderId,
    orderDate,
    customer: { userIds: ids.u ?? [], emailHashes: ids.e ?? [], phoneHashes: ids.p ?? [] },
  });
  it('links orders sharing any identifier, transitively; an order without identity is its own customer', () => {
    const keys = customerKeys([o('a', '1', { e: ['x'] }), o('b', '2', { e: ['x'], p: ['y'] }), o('c', '3', { p: ['y'] }), o('d', '4', {}), o('e', '5', {}), o('f', '6', { u: ['x'] })]);
    expect(keys.get('a')).toBe(keys.get('c'));
    expect(new Set([keys.get('a'), keys.get('d'), keys.get('e'), keys.get('f')]).size).toBe(4);
  });
  it('the first order is the earliest counted one', () => {
    const orders = [o('a', '2026-01-01T00:00:00.000Z', { e: ['x'] }, 'pending'), o('b', '2026-02-01T00:00:00.000Z', { e: ['x'] })];
    const plain = { countPendingOrders: false, countVoidedOrders: false, refundDateAttribution: 'refund_date', exclusionFilters: [] } as const;
    const customer = (settings: typeof plain | { countPendingOrders: true }) => firstCountedOrders(orders, { ...plain, ...settings });
    expect([...customer(plain).firstOrderOf.values()]).toEqual(['b']);
    expect([...customer({ countPendingOrders: true }).firstOrderOf.values()]).toEqual(['a']);
  });
  it('customer keys do not depend on the order the orders come in', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ e: fc.array(fc.constantFrom('1', '2', '3'), { maxLength: 2 }), p: fc.array(fc.constantFrom('1', '2'), { maxLength: 1 }) }), { maxLength: 8 }), (identities) => {
        const orders = identities.map((ids, i) => o(`o${i}`, String(i), ids));
        const forward = customerKeys(orders);
        const backward = customerKeys([...orders].reverse());
        for (const { orderId } of orders) expect(backward.get(orderId)).toBe(forward.get(orderId));
      }),
    );
  });
});

describe('customer digests', () => {
  const statuses = ['paid', 'pending', 'voided', 'refunded'] as const;
  const orderArbitrary = fc.record({
    day: fc.integer({ min: 1, max: 9 }),
    status: fc.constantFrom(...statuses),
    source: fc.constantFrom('web', 'pos'),
    ids: fc.subarray(['u:1', 'u:2', 'e:a', 'e:b', 'p:x'], { maxLength: 2 }),
  });

  it('decide who is new and who is who exactly as the whole history does, under any settings and any met subset (property)', () => {
    fc.assert(
      fc.property(
        fc.array(orderArbitrary, { minLength: 1, maxLength: 12 }),
        fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.nat(3),
        (specs, metMask, countPendingOrders, countVoidedOrders, excludePos, maxEarlier) => {
          const orders: QueryOrder[] = specs.map((spec, i) => ({
            orderId: `o${i}`,
            orderDate: `2026-03-0${spec.day}T00:00:00.000Z`,
            value: 10,
            currency: 'USD',
            sourceName: spec.source,
            tags: [],
            paymentGateway: null,
            financialStatus: spec.status,
            refunds: [],
            customer: {
              userIds: spec.ids.filter((id) => id.startsWith('u:')).map((id) => id.slice(2)),
              emailHashes: spec.ids.filter((id) => id.startsWith('e:')).map((id) => id.slice(2)),
              phoneHashes: spec.ids.filter((id) => id.startsWith('p:')).map((id) => id.slice(2)),
            },
          }));
          const settings: CountingSettings = {
            countPendingOrders,
            countVoidedOrders,
            refundDateAttribution: 'refund_date',
            exclusionFilters: excludePos ? [{ enabled: true, conditionGroups: [{ logic: 'and', conditions: [{ field: 'sourceName', operator: 'equals', value: 'pos' }] }] }] : [],
          };
          const groupOf = customerKeys(orders);
          const digests = new Map<string, CustomerDigest>();
          for (const group of new Set(groupOf.values())) {
            for (const [orderId, digest] of customerDigests(orders.filter((o) => groupOf.get(o.orderId) === group), maxEarlier)) digests.set(orderId, digest);
          }
          const met = orders.filter((_, i) => metMask[i]);
          const withDigests = met.map((o) => ({ ...o, customerDigest: digests.get(o.orderId)! }));
          // Orders whose digest was cut are read from the history, as the query does.
          const history = withDigests.some((o) => o.customerDigest.earlier === null) ? orders.filter((o) => withDigests.some((m) => m.customerDigest.earlier === null && groupOf.get(m.orderId) === groupOf.get(o.orderId))) : [];
          const fromDigests = metCustomers(withDigests, history, settings);
          const fromHistory = metCustomers(met, orders, settings);
          // Each result is asked about the orders it was given (a digested order's customer is its digest's).
          const view = (result: ReturnType<typeof metCustomers>, given: readonly QueryOrder[]) =>
            given.map((o) => ({
              isNew: result.firstOrderOf.get(result.customerOf(o)) === o.orderId,
              sameAs: given.filter((m) => result.customerOf(m) === result.customerOf(o)).map((m) => m.orderId),
            }));
          expect(view(fromDigests, withDigests)).toEqual(view(fromHistory, met));
          // And the history's answer is the rule itself: the earliest counted order of the customer.
          const { customerOf, firstOrderOf } = firstCountedOrders(orders, settings);
          expect(view(fromHistory, met).map((v) => v.isNew)).toEqual(met.map((o) => firstOrderOf.get(customerOf.get(o.orderId)!) === o.orderId));
        },
      ),
      { numRuns: 300 },
    );
  });
});
