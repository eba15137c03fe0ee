/**
 * The comparison operators both condition languages share: the query filter grammar
 * (evaluate-filter.ts) and the order-settings exclusion filters (orders/counting-rules.ts). One
 * table, so "contains ignores case" or "strings never equal numbers" cannot drift between them.
 *
 * - equals, in: exact, case-sensitive, strictly typed (the string "5" never equals 5).
 * - contains, starts_with, ends_with: strings only, ignoring case; no Unicode normalisation.
 * - greater_than … less_than_or_equals: numbers only.
 * - A value that is absent (null or undefined) or of another type matches no positive operator.
 * - not_equals, not_in, not_contains are exactly the negations of equals, in, contains, so they
 *   match an absent value (two-valued logic: `{not: C}` and C's negated operator agree).
 */
export type ScalarOperator =
  | 'equals'
  | 'in'
  | 'contains'
  | 'starts_with'
  | 'ends_with'
  | 'greater_than'
  | 'greater_than_or_equals'
  | 'less_than'
  | 'less_than_or_equals';

export type NegatedOperator = 'not_equals' | 'not_in' | 'not_contains';

export const NEGATION_OF: Readonly<Record<NegatedOperator, ScalarOperator>> = {
  not_equals: 'equals',
  not_in: 'in',
  not_contains: 'contains',
};

export function isNegatedOperator(operator: string): operator is NegatedOperator {
  return Object.hasOwn(NEGATION_OF, operator);
}

const lower = (text: string) => text.toLowerCase();
const isNumber = (value: unknown): value is number => typeof value === 'number' && !Number.isNaN(value);
const isPresent = (value: unknown) => value !== null && value !== undefined;

/** Whether one scalar value satisfies a positive operator against the condition's expected value. */
export const SCALAR_MATCHES: Readonly<Record<ScalarOperator, (actual: unknown, expected: unknown) => boolean>> = {
  equals: (actual, expected) => isPresent(actual) && actual === expected,
  in: (actual, expected) => isPresent(actual) && Array.isArray(expected) && expected.includes(actual),
  contains: (actual, expected) => typeof actual === 'string' && typeof expected === 'string' && lower(actual).includes(lower(expected)),
  starts_with: (actual, expected) => typeof actual === 'string' && typeof expected === 'string' && lower(actual).startsWith(lower(expected)),
  ends_with: (actual, expected) => typeof actual === 'string' && typeof expected === 'string' && lower(actual).endsWith(lower(expected)),
  greater_than: (actual, expected) => isNumber(actual) && isNumber(expected) && actual > expected,
  greater_than_or_equals: (actual, expected) => isNumber(actual) && isNumber(expected) && actual >= expected,
  less_than: (actual, expected) => isNumber(actual) && isNumber(expected) && actual < expected,
  less_than_or_equals: (actual, expected) => isNumber(actual) && isNumber(expected) && actual <= expected,
};

export function isScalarOperator(operator: string): operator is ScalarOperator {
  return Object.hasOwn(SCALAR_MATCHES, operator);
}
