import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateCondition } from '../../shared/filters/evaluate-filter';
import { NEGATION_OF, SCALAR_MATCHES, type NegatedOperator, type ScalarOperator } from '../../shared/filters/scalar-operators';
import { conditionMatches, type CountableOrder } from '../../shared/orders/counting-rules';

const operators = [...Object.keys(SCALAR_MATCHES), ...Object.keys(NEGATION_OF)] as Array<ScalarOperator | NegatedOperator>;
const scalar = fc.oneof(fc.constantFrom('Web', 'web', 'POS', 'pos-2'), fc.string({ maxLength: 4 }), fc.double({ noNaN: true, min: -10, max: 10 }), fc.constant(null));
const expected = fc.oneof(scalar.filter((value) => value !== null), fc.array(fc.constantFrom('Web', 'web', 'POS'), { maxLength: 3 }));

const order = (overrides: Partial<CountableOrder>): CountableOrder => ({ financialStatus: 'paid', sourceName: null, tags: [], value: null, paymentGateway: null, ...overrides });

describe('one operator table for query filters and exclusion filters', () => {
  it('an exclusion condition on a scalar order field answers exactly as the same query filter condition', () => {
    fc.assert(
      fc.property(fc.constantFrom(...operators), scalar, expected, (operator, actual, value) => {
        const field = typeof actual === 'number' ? 'value' : 'sourceName';
        const stored = order({ [field]: actual } as Partial<CountableOrder>);
        expect(conditionMatches(stored, { field, operator, value })).toBe(evaluateCondition({ op: operator, value } as never, actual));
      }),
    );
  });

  it('a list field (tags) matches a positive operator when any item does, in both languages', () => {
    fc.assert(
      fc.property(fc.constantFrom(...operators), fc.array(fc.constantFrom('VIP', 'vip', 'wholesale'), { maxLength: 3 }), expected, (operator, tags, value) => {
        expect(conditionMatches(order({ tags }), { field: 'tags', operator, value })).toBe(evaluateCondition({ op: operator, value } as never, tags));
      }),
    );
  });
});
