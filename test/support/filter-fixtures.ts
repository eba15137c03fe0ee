import fc from 'fast-check';
import { FILTER_FIELDS, FILTER_OPERATORS, type FilterFieldEntry, type FilterOperator } from '../../shared/catalog/filter-fields';
import type { Filter, FilterCondition } from '../../shared/filters/filter-schema';

/** A value of the shape `op` takes on `entry`, and valid for it (a listed value where the set is closed). */
export function validValueFor(entry: FilterFieldEntry, op: FilterOperator): fc.Arbitrary<FilterCondition['value']> {
  const text = entry.values ? fc.constantFrom(...entry.values) : fc.string({ maxLength: 12 });
  if (op === 'in' || op === 'not_in') return fc.array(text, { minLength: 1, maxLength: 4 });
  return entry.valueType === 'number' ? fc.double({ noNaN: true, noDefaultInfinity: true }) : text;
}

/** A condition the ad listing accepts, on one of the given catalog fields. */
export function validConditionOn(entries: readonly FilterFieldEntry[]): fc.Arbitrary<FilterCondition> {
  return fc
    .constantFrom(...entries)
    .chain((entry) =>
      fc.constantFrom(...entry.supportedOperators).chain((op) => validValueFor(entry, op).map((value) => ({ field: entry.field, op, value }))),
    );
}

/** The ad listing's fields (query_ads), which these fixtures exercise. */
const adFields = FILTER_FIELDS.filter((entry) => entry.applicableContexts.includes('query_ads'));
export const attributeEntries = adFields.filter((entry) => entry.kind === 'attribute');
export const metricEntries = adFields.filter((entry) => entry.kind === 'metric');

/** Filter trees of any shape the grammar allows (depth ≤ 3, width ≤ 3: within every bound) over the given leaves. */
export function filterTree(leaf: fc.Arbitrary<FilterCondition>, depth = 3): fc.Arbitrary<Filter> {
  if (depth === 0) return leaf;
  const inner = filterTree(leaf, depth - 1);
  return fc.oneof(
    { depthSize: 'small' },
    leaf,
    fc.array(inner, { minLength: 1, maxLength: 3 }).map((and) => ({ and })),
    fc.array(inner, { minLength: 1, maxLength: 3 }).map((or) => ({ or })),
    inner.map((not) => ({ not })),
  );
}

/** Any condition the grammar (not the catalog) accepts. */
export const grammarCondition: fc.Arbitrary<FilterCondition> = fc.record({
  field: fc.string({ minLength: 1, maxLength: 20 }),
  op: fc.constantFrom(...FILTER_OPERATORS),
  value: fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.array(fc.string({ maxLength: 10 }), { minLength: 1, maxLength: 5 }),
  ),
});

/** n conditions of a valid filter. */
export function nameConditions(n: number): FilterCondition[] {
  return Array.from({ length: n }, (_, i) => ({ field: 'channel.ad_name', op: 'contains', value: `part ${i}` }));
}

/** `levels` groups nested in one another around one condition, alternating operators. */
export function nestedGroups(levels: number, leaf: Filter = { field: 'channel.ad_name', op: 'equals', value: 'x' }): Filter {
  let filter = leaf;
  for (let i = 0; i < levels; i++) filter = i % 3 === 0 ? { and: [filter] } : i % 3 === 1 ? { or: [filter] } : { not: filter };
  return filter;
}
