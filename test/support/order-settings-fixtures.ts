import fc from 'fast-check';
import {
  ORDER_EXCLUSION_FIELD_CATALOG,
  ORDER_EXCLUSION_FIELDS,
  type ConditionOperator,
  type ConditionValueKind,
} from '../../shared/catalog/order-exclusion-fields';

/** A small valid PUT body to start each example from. */
export function validSettings(overrides: Record<string, unknown> = {}) {
  return {
    countPendingOrders: false,
    countVoidedOrders: true,
    refundDateAttribution: 'refund_date',
    exclusionFilters: [
      {
        name: 'Exclude POS',
        enabled: true,
        conditionGroups: [
          {
            logic: 'and',
            conditions: [
              { field: 'sourceName', operator: 'equals', value: 'pos' },
              { field: 'value', operator: 'greater_than', value: 1000 },
            ],
          },
        ],
      },
    ],
    ...overrides,
  };
}

const valueFor: Record<ConditionValueKind, fc.Arbitrary<unknown>> = {
  string: fc.string({ maxLength: 20 }),
  number: fc.double({ noNaN: true, noDefaultInfinity: true }),
  'string[]': fc.array(fc.string({ maxLength: 10 }), { minLength: 1, maxLength: 5 }),
  'string | string[]': fc.oneof(fc.string({ maxLength: 10 }), fc.array(fc.string({ maxLength: 10 }), { minLength: 1, maxLength: 5 })),
};

/** Pieces a name may be built from: scripts, marks, digits, punctuation, symbols and emoji sequences. */
const NAME_PIECES = ['a', 'Z', 'é', 'e\u0301', 'ß', 'Ж', 'ك', '中', 'ह', '7', '٣', ' ', '-', '_', '.', '!', '(', '€', '+', '😀', '👩‍💻', '🇫🇷', '👍🏽', '1️⃣', '🏴󠁧󠁢󠁳󠁣󠁴󠁿'];

export const validName = fc
  .array(fc.constantFrom(...NAME_PIECES), { minLength: 1, maxLength: 30 })
  .map((pieces) => pieces.join(''))
  .filter((name) => [...name].length <= 100);

const condition = fc
  .constantFrom(...ORDER_EXCLUSION_FIELDS)
  .chain((field) =>
    fc.constantFrom(...(Object.entries(ORDER_EXCLUSION_FIELD_CATALOG[field].operators) as Array<[ConditionOperator, ConditionValueKind]>)).chain(
      ([operator, kind]) =>
        fc.record(
          { id: fc.uuid({ version: 4 }), field: fc.constant(field), operator: fc.constant(operator), value: valueFor[kind] },
          { requiredKeys: ['field', 'operator', 'value'] },
        ),
    ),
  );

const group = fc.record(
  { id: fc.uuid(), logic: fc.constantFrom('and', 'or'), conditions: fc.array(condition, { minLength: 1, maxLength: 4 }) },
  { requiredKeys: ['logic', 'conditions'] },
);

const filter = fc.record(
  { id: fc.uuid(), name: validName, enabled: fc.boolean(), conditionGroups: fc.array(group, { minLength: 1, maxLength: 3 }) },
  { requiredKeys: ['name', 'enabled', 'conditionGroups'] },
);

/** Any valid PUT body (ids present or not; generated UUIDs are distinct with overwhelming odds). */
export const validSettingsDocument = fc.record({
  countPendingOrders: fc.boolean(),
  countVoidedOrders: fc.boolean(),
  refundDateAttribution: fc.constantFrom('refund_date', 'order_date'),
  exclusionFilters: fc.array(filter, { maxLength: 4 }),
});

/** Every object inside a document, with its path: where an unknown key can be slipped in. */
export function objectsWithPaths(value: unknown, path: string[] = []): Array<{ object: Record<string, unknown>; path: string[] }> {
  if (Array.isArray(value)) return value.flatMap((item, i) => objectsWithPaths(item, [...path, String(i)]));
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  return [
    { object, path },
    ...Object.entries(object).flatMap(([key, child]) => objectsWithPaths(child, [...path, key])),
  ];
}
