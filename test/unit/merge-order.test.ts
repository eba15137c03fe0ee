import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeOrder, type OrderState } from '../../shared/orders/merge-order';
import type { OrderUpdate } from '../../shared/orders/order';
import { FINANCIAL_STATUSES } from '../../shared/orders/order-fields';

const NOW = new Date('2026-03-10T12:00:00.000Z');

function update(asOf: string, fields: OrderUpdate['fields'] = {}, extra: Partial<OrderUpdate> = {}): OrderUpdate {
  return {
    orderId: '1001',
    asOf,
    fields,
    defaults: { orderDate: asOf, financialStatus: 'paid' },
    refunds: [],
    customer: { emailHashes: [], phoneHashes: [], userIds: [] },
    ...extra,
  };
}

const apply = (...updates: OrderUpdate[]) => updates.reduce<OrderState | undefined>((state, next) => mergeOrder(state, next, NOW), undefined)!.order;

describe('merging what sources say about an order', () => {
  it('creates an order with every exclusion-filter field present, null or [] until stated', () => {
    expect(apply(update('2026-03-01T10:00:00Z'))).toEqual({
      orderId: '1001',
      orderDate: '2026-03-01T10:00:00.000Z',
      value: null,
      currency: null,
      sourceName: null,
      tags: [],
      paymentGateway: null,
      financialStatus: 'paid',
      refunds: [],
      customer: { emailHashes: [], phoneHashes: [], userIds: [] },
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
    });
  });

  it('replaces the fields a later source states and keeps the ones it leaves out', () => {
    const order = apply(
      update('2026-03-01T10:00:00Z', { value: 100, currency: 'USD', sourceName: 'web', tags: ['vip'], paymentGateway: 'stripe' }),
      update('2026-03-02T10:00:00Z', { value: 80, financialStatus: 'partially_refunded' }),
    );
    expect(order).toMatchObject({ value: 80, currency: 'USD', sourceName: 'web', tags: ['vip'], paymentGateway: 'stripe', financialStatus: 'partially_refunded' });
  });

  it('lets an older source fill what nobody stated but never roll a stated field back', () => {
    const order = apply(
      update('2026-03-05T10:00:00Z', { financialStatus: 'refunded' }),
      update('2026-03-01T10:00:00Z', { financialStatus: 'paid', value: 100, tags: ['b2b'] }),
    );
    expect(order).toMatchObject({ financialStatus: 'refunded', value: 100, tags: ['b2b'] });
  });

  it('treats an implied order date and paid status as defaults any stated value replaces', () => {
    const order = apply(
      update('2026-03-05T10:00:00Z', { value: 10 }),
      update('2026-03-01T10:00:00Z', { orderDate: '2026-02-28T09:00:00+01:00', financialStatus: 'pending' }),
      update('2026-03-06T10:00:00Z', { value: 12 }),
    );
    expect(order).toMatchObject({ orderDate: '2026-02-28T08:00:00.000Z', financialStatus: 'pending', value: 12 });
  });

  it('accumulates refunds (the same refund once) and customer identifiers', () => {
    const first = { amount: 10, processedAt: '2026-03-03T10:00:00Z' };
    const second = { id: 'r2', amount: 5, processedAt: '2026-03-02T10:00:00Z' };
    const order = apply(
      update('2026-03-03T10:00:00Z', {}, { refunds: [first], customer: { emailHashes: ['e1'], phoneHashes: [], userIds: ['u1'] } }),
      update('2026-03-04T10:00:00Z', {}, { refunds: [second, { ...first, processedAt: '2026-03-03T11:00:00+01:00' }], customer: { emailHashes: ['e2', 'e1'], phoneHashes: ['p1'], userIds: [] } }),
    );
    expect(order.refunds).toEqual([
      { id: 'r2', amount: 5, processedAt: '2026-03-02T10:00:00.000Z' },
      { amount: 10, processedAt: '2026-03-03T10:00:00.000Z' },
    ]);
    expect(order.customer).toEqual({ emailHashes: ['e1', 'e2'], phoneHashes: ['p1'], userIds: ['u1'] });
  });

  const isoTime = fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 0, 1) }).map((ms) => new Date(ms).toISOString());
  const anyUpdate = fc
    .record({
      asOf: isoTime,
      fields: fc.record(
        {
          value: fc.double({ min: 0, max: 1e6, noNaN: true }),
          currency: fc.constantFrom('USD', 'EUR'),
          sourceName: fc.constantFrom('web', 'pos'),
          tags: fc.array(fc.constantFrom('vip', 'b2b', 'test'), { maxLength: 2 }),
          paymentGateway: fc.constantFrom('stripe', 'paypal'),
          financialStatus: fc.constantFrom(...FINANCIAL_STATUSES),
          orderDate: isoTime,
        },
        { requiredKeys: [] },
      ),
      refunds: fc.array(fc.record({ amount: fc.nat(100), processedAt: isoTime }), { maxLength: 2 }),
      emails: fc.array(fc.constantFrom('h1', 'h2', 'h3'), { maxLength: 2 }),
    })
    .map(({ asOf, fields, refunds, emails }) => update(asOf, fields, { refunds, customer: { emailHashes: emails, phoneHashes: [], userIds: [] } }));

  it('is idempotent: applying an update again changes nothing (property)', () => {
    fc.assert(
      fc.property(fc.array(anyUpdate, { minLength: 1, maxLength: 4 }), anyUpdate, (history, again) => {
        const once = [...history, again].reduce<OrderState | undefined>((state, next) => mergeOrder(state, next, NOW), undefined)!;
        expect(mergeOrder(once, again, NOW)).toEqual(once);
      }),
    );
  });

  it('does not depend on arrival order when the sources have distinct times (property)', () => {
    fc.assert(
      fc.property(anyUpdate, anyUpdate, (a, b) => {
        fc.pre(a.asOf !== b.asOf);
        const ab = apply(a, b);
        const ba = apply(b, a);
        // The customer lists keep first-seen order; as sets they agree.
        const asSets = (order: typeof ab) => ({ ...order, customer: { ...order.customer, emailHashes: [...order.customer.emailHashes].sort() } });
        expect(asSets(ab)).toEqual(asSets(ba));
      }),
    );
  });
});
