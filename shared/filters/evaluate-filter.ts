import type { Filter, FilterCondition } from './filter-schema';
import { isNegatedOperator, NEGATION_OF, SCALAR_MATCHES } from './scalar-operators';

/**
 * Whether a row matches a filter. `valueOf` answers a field's value for the row; null or
 * undefined means the row has none (an ad with no impressions has no CTR).
 *
 * Operator semantics are scalar-operators.ts's (the filter-field catalog's descriptions and the
 * README say the same); a list value (an order's tags) matches a positive operator when any of its
 * items does.
 */
export function evaluateFilter(filter: Filter, valueOf: (field: string) => unknown): boolean {
  if ('field' in filter) return evaluateCondition(filter, valueOf(filter.field));
  if ('not' in filter) return !evaluateFilter(filter.not, valueOf);
  if ('and' in filter) return filter.and.every((child) => evaluateFilter(child, valueOf));
  return filter.or.some((child) => evaluateFilter(child, valueOf));
}

/** Whether one field value satisfies one condition. */
export function evaluateCondition(condition: Pick<FilterCondition, 'op' | 'value'>, actual: unknown): boolean {
  if (isNegatedOperator(condition.op)) return !evaluateCondition({ op: NEGATION_OF[condition.op], value: condition.value }, actual);
  const matches = SCALAR_MATCHES[condition.op];
  return Array.isArray(actual) ? actual.some((item) => matches(item, condition.value)) : matches(actual, condition.value);
}
