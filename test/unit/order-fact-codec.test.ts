import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CustomerDigest, QueryOrder } from '../../shared/analytics/query-data';
import { decodeFact, encodeFact, isoAt } from '../../shared/store/query-read-models';

const text = fc.string({ minLength: 1, maxLength: 8 });
const money = fc.double({ min: 0, max: 1e6, noNaN: true });
const status = fc.constantFrom('paid', 'pending', 'refunded', 'partially_refunded', 'voided') as fc.Arbitrary<QueryOrder['financialStatus']>;

const orderArbitrary: fc.Arbitrary<QueryOrder> = fc
  .record(
    {
      orderId: text,
      orderDate: fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((date) => date.toISOString()),
      value: fc.option(money, { nil: null }),
      currency: fc.option(fc.constantFrom('USD', 'EUR'), { nil: null }),
      sourceName: fc.option(text, { nil: null }),
      tags: fc.array(text, { maxLength: 3 }),
      paymentGateway: fc.option(text, { nil: null }),
      financialStatus: status,
      refunds: fc.array(fc.record({ amount: money, processedAt: fc.constant('2026-03-02T00:00:00.000Z') }), { maxLength: 2 }),
      customer: fc.record({ userIds: fc.array(text, { maxLength: 2 }), emailHashes: fc.array(text, { maxLength: 2 }), phoneHashes: fc.array(text, { maxLength: 2 }) }),
      items: fc.array(
        fc.record({ sku: text, quantity: fc.integer({ min: 1, max: 9 }), price: money, cost: money }, { requiredKeys: ['quantity', 'price'] }),
        { minLength: 1, maxLength: 3 },
      ),
      shippingCost: money,
    },
    { requiredKeys: ['orderId', 'orderDate', 'value', 'currency', 'sourceName', 'tags', 'paymentGateway', 'financialStatus', 'refunds', 'customer'] },
  );

const digestArbitrary: fc.Arbitrary<CustomerDigest | undefined> = fc.option(
  fc.record({
    customerId: text,
    earlier: fc.option(fc.array(fc.record({ financialStatus: status, sourceName: fc.option(text, { nil: null }), tags: fc.array(text, { maxLength: 2 }), value: fc.option(money, { nil: null }), paymentGateway: fc.option(text, { nil: null }) }), { maxLength: 3 }), { nil: null }),
  }),
  { nil: undefined },
);

describe('the positional encoding of an order fact', () => {
  it('reads back every member the queries use, costs (items, shipping) and the customer digest included', () => {
    fc.assert(
      fc.property(orderArbitrary, digestArbitrary, (order, digest) => {
        const decoded = decodeFact(order.orderId, encodeFact(order, digest));
        expect(decoded).toEqual({ ...order, ...(digest ? { customerDigest: digest } : {}) });
      }),
    );
  });
});

describe('the day copies\' times', () => {
  it('read back in the toISOString() form, within the day and outside it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3_650 }), fc.integer({ min: -3 * 86_400_000, max: 4 * 86_400_000 }), (dayNumber, offset) => {
        const dayStart = Date.UTC(2020, 0, 1) + dayNumber * 86_400_000;
        const day = new Date(dayStart).toISOString().slice(0, 10);
        expect(isoAt(day, dayStart, offset)).toBe(new Date(dayStart + offset).toISOString());
      }),
      { numRuns: 2_000 },
    );
    expect(isoAt('2026-03-08', Date.UTC(2026, 2, 8), 86_399_999)).toBe('2026-03-08T23:59:59.999Z');
  });
});
