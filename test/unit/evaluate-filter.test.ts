import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FILTER_OPERATORS, type FilterOperator } from '../../shared/catalog/filter-fields';
import { evaluateCondition, evaluateFilter } from '../../shared/filters/evaluate-filter';
import type { Filter, FilterCondition } from '../../shared/filters/filter-schema';
import { filterTree } from '../support/filter-fixtures';

/** One ad, as the listing's `valueOf` would answer for it. */
const AD: Record<string, unknown> = {
  'channel.ad_name': 'Spring Sale – Video 1',
  'channel.resource_status': 'ACTIVE',
  'channel.resource_source': 'metaIntegration',
  'channel.spend': 120.5,
  'channel.ctr': null, // no impressions: no CTR
};
const matches = (filter: Filter) => evaluateFilter(filter, (field) => AD[field]);
const c = (field: string, op: FilterOperator, value: FilterCondition['value']): FilterCondition => ({ field, op, value });

describe('operators on an ad', () => {
  it.each([
    [c('channel.ad_name', 'equals', 'Spring Sale – Video 1'), true],
    [c('channel.ad_name', 'equals', 'spring sale – video 1'), false], // equals is exact
    [c('channel.ad_name', 'not_equals', 'spring sale – video 1'), true],
    [c('channel.resource_status', 'in', ['PAUSED', 'ACTIVE']), true],
    [c('channel.resource_status', 'in', ['active']), false], // in is exact
    [c('channel.resource_status', 'not_in', ['PAUSED']), true],
    [c('channel.ad_name', 'contains', 'SALE'), true], // text operators ignore case
    [c('channel.ad_name', 'not_contains', 'sale'), false],
    [c('channel.ad_name', 'starts_with', 'spring'), true],
    [c('channel.ad_name', 'starts_with', 'Sale'), false],
    [c('channel.ad_name', 'ends_with', 'VIDEO 1'), true],
    [c('channel.spend', 'equals', 120.5), true],
    [c('channel.spend', 'equals', '120.5'), false], // strictly typed
    [c('channel.spend', 'greater_than', 120), true],
    [c('channel.spend', 'greater_than', 120.5), false],
    [c('channel.spend', 'greater_than_or_equals', 120.5), true],
    [c('channel.spend', 'less_than', 120.5), false],
    [c('channel.spend', 'less_than_or_equals', 120.5), true],
  ])('%j → %s', (condition, expected) => {
    expect(matches(condition)).toBe(expected);
  });
});

describe('a field without a value (null, undefined, NaN)', () => {
  const POSITIVE = ['equals', 'in', 'contains', 'starts_with', 'ends_with', 'greater_than', 'greater_than_or_equals', 'less_than', 'less_than_or_equals'] as const;
  const NEGATIVE = { not_equals: 'equals', not_in: 'in', not_contains: 'contains' } as const;
  const valueFor = (op: FilterOperator): FilterCondition['value'] => (op === 'in' || op === 'not_in' ? ['x'] : op.includes('than') ? 0 : 'x');

  it.each(POSITIVE)('never matches %s', (op) => {
    for (const missing of [null, undefined, Number.NaN]) expect(evaluateCondition({ op, value: valueFor(op) }, missing)).toBe(false);
    expect(matches(c('channel.ctr', op, valueFor(op)))).toBe(false);
  });

  it.each(Object.keys(NEGATIVE) as Array<keyof typeof NEGATIVE>)('always matches %s, the negation of its positive operator', (op) => {
    for (const missing of [null, undefined, Number.NaN]) expect(evaluateCondition({ op, value: valueFor(op) }, missing)).toBe(true);
    expect(matches(c('channel.ctr', op, valueFor(op)))).toBe(true);
  });

  it('so a not group and a negated operator agree on it', () => {
    expect(matches({ not: c('channel.ctr', 'greater_than', 1) })).toBe(true);
    expect(matches({ not: c('channel.ctr', 'equals', 1) })).toBe(matches(c('channel.ctr', 'not_equals', 1)));
  });
});

/* Properties. A field's value is any JSON-ish scalar, or missing; conditions are any the grammar allows. */

const FIELDS = ['f.a', 'f.b', 'f.c'];
const fieldValue = fc.oneof(
  fc.constantFrom(null, undefined, Number.NaN, '', 'Sale', 'sale', 'SALE 2', 'x'),
  fc.string({ maxLength: 6 }),
  fc.double({ noDefaultInfinity: true }),
  fc.integer({ min: -3, max: 3 }),
  fc.boolean(),
);
const row = fc.record(Object.fromEntries(FIELDS.map((field) => [field, fieldValue])) as Record<string, fc.Arbitrary<unknown>>);
const conditionValue = fc.oneof(
  fc.constantFrom('sale', 'SALE', 'x', ''),
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -3, max: 3 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.array(fc.oneof(fc.constantFrom('Sale', 'sale', 'x'), fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 4 }),
);
const condition: fc.Arbitrary<FilterCondition> = fc.record({ field: fc.constantFrom(...FIELDS), op: fc.constantFrom(...FILTER_OPERATORS), value: conditionValue });

/** The semantics, restated as plainly as possible. */
function reference(filter: Filter, values: Record<string, unknown>): boolean {
  if ('and' in filter) return filter.and.every((child) => reference(child, values));
  if ('or' in filter) return filter.or.some((child) => reference(child, values));
  if ('not' in filter) return !reference(filter.not, values);
  const actual = values[filter.field];
  const expected = filter.value;
  const present = actual !== null && actual !== undefined && !Number.isNaN(actual);
  const text = present && typeof actual === 'string' && typeof expected === 'string';
  const numbers = present && typeof actual === 'number' && typeof expected === 'number';
  switch (filter.op) {
    case 'equals': return present && actual === expected;
    case 'not_equals': return !(present && actual === expected);
    case 'in': return present && Array.isArray(expected) && expected.some((item) => item === actual);
    case 'not_in': return !(present && Array.isArray(expected) && expected.some((item) => item === actual));
    case 'contains': return text && actual.toLowerCase().includes(expected.toLowerCase());
    case 'not_contains': return !(text && actual.toLowerCase().includes(expected.toLowerCase()));
    case 'starts_with': return text && actual.toLowerCase().startsWith(expected.toLowerCase());
    case 'ends_with': return text && actual.toLowerCase().endsWith(expected.toLowerCase());
    case 'greater_than': return numbers && actual > expected;
    case 'greater_than_or_equals': return numbers && actual >= expected;
    case 'less_than': return numbers && actual < expected;
    case 'less_than_or_equals': return numbers && actual <= expected;
  }
}

describe('evaluation properties', () => {
  const tree = filterTree(condition);
  const evaluate = (filter: Filter, values: Record<string, unknown>) => evaluateFilter(filter, (field) => values[field]);

  it('agrees with the reference semantics on every tree and row', () => {
    fc.assert(
      fc.property(tree, row, (filter, values) => {
        expect(evaluate(filter, values)).toBe(reference(filter, values));
      }),
      { numRuns: 500 },
    );
  });

  it('not X ≡ !X', () => {
    fc.assert(
      fc.property(tree, row, (filter, values) => {
        expect(evaluate({ not: filter }, values)).toBe(!evaluate(filter, values));
      }),
    );
  });

  it('and ≡ every child, or ≡ some child, and De Morgan holds', () => {
    fc.assert(
      fc.property(fc.array(tree, { minLength: 1, maxLength: 4 }), row, (filters, values) => {
        const each = filters.map((filter) => evaluate(filter, values));
        expect(evaluate({ and: filters }, values)).toBe(each.every(Boolean));
        expect(evaluate({ or: filters }, values)).toBe(each.some(Boolean));
        expect(evaluate({ not: { and: filters } }, values)).toBe(evaluate({ or: filters.map((f) => ({ not: f })) }, values));
      }),
    );
  });

  it('in ≡ an or of equals, and not_in ≡ not in', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 3 }), { minLength: 1, maxLength: 5 }), fieldValue, (list, actual) => {
        const asEquals: Filter = { or: list.map((value) => c('f.a', 'equals', value)) };
        expect(evaluateCondition({ op: 'in', value: list }, actual)).toBe(evaluateFilter(asEquals, () => actual));
        expect(evaluateCondition({ op: 'not_in', value: list }, actual)).toBe(!evaluateCondition({ op: 'in', value: list }, actual));
      }),
    );
  });

  it('each negated operator is the not of its positive one', () => {
    fc.assert(
      fc.property(conditionValue, fieldValue, (value, actual) => {
        for (const [negative, positive] of [['not_equals', 'equals'], ['not_in', 'in'], ['not_contains', 'contains']] as const) {
          expect(evaluateCondition({ op: negative, value }, actual)).toBe(!evaluateCondition({ op: positive, value }, actual));
        }
      }),
    );
  });

  it('the comparisons order numbers: exactly one of <, =, > holds when both are numbers', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ noNaN: true, noDefaultInfinity: true }), (actual, value) => {
        const holds = (op: FilterOperator) => evaluateCondition({ op, value }, actual);
        expect([holds('less_than'), holds('equals'), holds('greater_than')].filter(Boolean)).toHaveLength(1);
        expect(holds('less_than_or_equals')).toBe(!holds('greater_than'));
        expect(holds('greater_than_or_equals')).toBe(!holds('less_than'));
      }),
    );
  });

  it('never throws, whatever valueOf answers', () => {
    fc.assert(
      fc.property(tree, fc.anything(), (filter, anything) => {
        expect(typeof evaluateFilter(filter, () => anything)).toBe('boolean');
      }),
    );
  });
});
