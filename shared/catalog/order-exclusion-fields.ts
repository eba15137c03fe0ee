/**
 * ORDER_EXCLUSION_FIELD_CATALOG (spec section 2.4): which operators each order field accepts and
 * what `value` each operator takes. Validation reads this table and nothing else.
 */
export const CONDITION_OPERATORS = [
  'equals',
  'not_equals',
  'in',
  'not_in',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'greater_than',
  'less_than',
  'greater_than_or_equals',
  'less_than_or_equals',
  'exists',
  'not_exists',
  'array_includes',
  'array_includes_all',
  'array_includes_any',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

export const ORDER_EXCLUSION_FIELDS = ['sourceName', 'tags', 'value', 'paymentGateway'] as const;
export type OrderExclusionField = (typeof ORDER_EXCLUSION_FIELDS)[number];

/** The JSON type a condition's `value` must have. */
export type ConditionValueKind = 'string' | 'string[]' | 'number' | 'string | string[]';

export const ORDER_EXCLUSION_FIELD_CATALOG: Record<
  OrderExclusionField,
  { description: string; operators: Partial<Record<ConditionOperator, ConditionValueKind>> }
> = {
  sourceName: {
    description: 'The sales channel that created the order, e.g. "web" or "pos".',
    operators: { equals: 'string', not_equals: 'string', in: 'string[]', not_in: 'string[]', contains: 'string' },
  },
  tags: {
    description: 'The tags on the order.',
    operators: { array_includes: 'string | string[]', array_includes_any: 'string | string[]' },
  },
  value: {
    description: 'The order total, in the order currency.',
    operators: {
      equals: 'number',
      not_equals: 'number',
      greater_than: 'number',
      less_than: 'number',
      greater_than_or_equals: 'number',
      less_than_or_equals: 'number',
    },
  },
  paymentGateway: {
    description: 'The payment gateway that took the payment, e.g. "stripe".',
    operators: { equals: 'string', not_equals: 'string', in: 'string[]', not_in: 'string[]' },
  },
};

export function allowedOperators(field: OrderExclusionField): ConditionOperator[] {
  return Object.keys(ORDER_EXCLUSION_FIELD_CATALOG[field].operators) as ConditionOperator[];
}
