import type { FilterOperator } from '../catalog/filter-fields';
import type { Filter, FilterCondition } from './filter-schema';

/**
 * Whether a row matches a filter. `valueOf` answers a field's value for the row; null or
 * undefined means the row has none (an ad with no impressions has no CTR).
 *
 * Semantics (the filter-field catalog's descriptions and the README say the same):
 * - equals, in: exact, case-sensitive, strictly typed (the string "5" never equals 5).
 * - contains, starts_with, ends_with: strings only, ignoring case; no Unicode normalisation.
 * - greater_than … less_than_or_equals: numbers only.
 * - A row without a value, or with a value of another type, matches no positive operator.
 * - A list value (an order's tags) matches a positive operator when any of its items does.
 * - not_equals, not_in, not_contains are exactly the negation of equals, in, contains, so they
 *   match a row without a value. Two-valued logic keeps `{not: C}` and C's negated operator
 *   interchangeable, which a client composing filters can rely on.
 */
export function evaluateFilter(filter: Filter, valueOf: (field: string) => unknown): boolean {
  if ('field' in filter) return evaluateCondition(filter, valueOf(filter.field));
  if ('not' in filter) return !evaluateFilter(filter.not, valueOf);
  if ('and' in filter) return filter.and.every((child) => evaluateFilter(child, valueOf));
  return filter.or.some((child) => evaluateFilter(child, valueOf));
}

type PositiveOperator = Exclude<FilterOperator, 'not_equals' | 'not_in' | 'not_contains'>;

const NEGATED: Partial<Record<FilterOperator, PositiveOperator>> = {
  not_equals: 'equals',
  not_in: 'in',
  not_contains: 'contains',
};

const lower = (text: string) => text.toLowerCase();
const isNumber = (value: unknown): value is number => typeof value === 'number' && !Number.isNaN(value);

const MATCHES: Record<PositiveOperator, (actual: unknown, expected: FilterCondition['value']) => boolean> = {
  equals: (actual, expected) => actual !== null && actual !== undefined && actual === expected,
  in: (actual, expected) => Array.isArray(expected) && typeof actual === 'string' && expected.includes(actual),
  contains: (actual, expected) => typeof actual === 'string' && typeof expected === 'string' && lower(actual).includes(lower(expected)),
  starts_with: (actual, expected) => typeof actual === 'string' && typeof expected === 'string' && lower(actual).startsWith(lower(expected)),
  ends_with: (actual, expected) => typeof actual === 'string' && typeof expected === 'string' && lower(actual).endsWith(lower(expected)),
  greater_than: (actual, expected) => isNumber(actual) && isNumber(expected) && actual > expected,
  greater_than_or_equals: (actual, expected) => isNumber(actual) && isNumber(expected) && actual >= expected,
  less_than: (actual, expected) => isNumber(actual) && isNumber(expected) && actual < expected,
  less_than_or_equals: (actual, expected) => isNumber(actual) && isNumber(expected) && actual <= expected,
};

/** Whether one field value satisfies one condition. */
export function evaluateCondition(condition: Pick<FilterCondition, 'op' | 'value'>, actual: unknown): boolean {
  const positive = NEGATED[condition.op];
  if (positive) return !evaluateCondition({ op: positive, value: condition.value }, actual);
  const matches = MATCHES[condition.op as PositiveOperator];
  return Array.isArray(actual) ? actual.some((item) => matches(item, condition.value)) : matches(actual, condition.value);
}
