import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { OrderUpdate } from '../../shared/orders/order';
import { foldSources } from '../../shared/orders/order-sources';

const update = fc.record({
  orderId: fc.constant('o1'),
  asOf: fc.constantFrom('2026-03-10T10:00:00.000Z', '2026-03-10T11:00:00.000Z', '2026-03-11T09:00:00.000Z'),
  fields: fc.record(
    { value: fc.constantFrom(10, 20, 30), financialStatus: fc.constantFrom('paid' as const, 'refunded' as const), tags: fc.constantFrom(['a'], ['b']) },
    { requiredKeys: [] },
  ),
  defaults: fc.record({ orderDate: fc.constantFrom('2026-03-10T10:00:00.000Z', '2026-03-09T10:00:00.000Z'), financialStatus: fc.constant('paid' as const) }),
  refunds: fc.array(fc.record({ amount: fc.constantFrom(1, 2), processedAt: fc.constant('2026-03-12T00:00:00.000Z') }), { maxLength: 2 }),
  customer: fc.record({ emailHashes: fc.constant([]), phoneHashes: fc.constant([]), userIds: fc.subarray(['u1', 'u2', 'u3']) }),
}) as fc.Arbitrary<OrderUpdate>;

const sources = fc.uniqueArray(
  fc.record({ key: fc.string({ minLength: 1, maxLength: 4 }), pos: fc.string({ maxLength: 4 }), at: fc.constantFrom('2026-03-10T12:00:00.000Z', '2026-03-11T12:00:00.000Z'), update }),
  { minLength: 1, maxLength: 6, selector: (source) => source.key },
);

describe('an order folded from its sources', () => {
  it('is the same whatever order the sources were collected in (fast-check)', () => {
    fc.assert(
      fc.property(sources, fc.func(fc.integer()), (list, rank) => {
        const asMap = (items: typeof list) => Object.fromEntries(items.map(({ key, ...source }) => [key, source]));
        const shuffled = [...list].sort((a, b) => rank(a.key) - rank(b.key));
        expect(foldSources(asMap(shuffled))).toEqual(foldSources(asMap(list)));
      }),
    );
  });

  it('was created when its first source was received and updated when its last one was', () => {
    const base = { fields: {}, defaults: { orderDate: '2026-03-10T10:00:00.000Z', financialStatus: 'paid' as const }, refunds: [], customer: { emailHashes: [], phoneHashes: [], userIds: [] } };
    const state = foldSources({
      'event:b': { pos: 'B', at: '2026-03-11T12:00:00.000Z', update: { orderId: 'o1', asOf: '2026-03-10T10:00:00.000Z', ...base, fields: { value: 5 } } },
      'event:a': { pos: 'A', at: '2026-03-10T12:00:00.000Z', update: { orderId: 'o1', asOf: '2026-03-10T09:00:00.000Z', ...base } },
    });
    expect(state.order).toMatchObject({ value: 5, createdAt: '2026-03-10T12:00:00.000Z', updatedAt: '2026-03-11T12:00:00.000Z' });
  });
});
