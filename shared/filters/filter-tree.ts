import type { Filter, FilterGroup, GroupOperator } from './filter-schema';

/** A group's operator and its child filters, each with its path under `path`. */
export function groupParts(
  group: FilterGroup,
  path: readonly string[] = [],
): { operator: GroupOperator; children: Array<[Filter, string[]]> } {
  if ('not' in group) return { operator: 'not', children: [[group.not, [...path, 'not']]] };
  const [operator, filters] = 'and' in group ? (['and', group.and] as const) : (['or', group.or] as const);
  return { operator, children: filters.map((filter, i) => [filter, [...path, operator, String(i)]]) };
}
