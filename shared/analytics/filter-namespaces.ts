import type { DimensionFamily } from '../catalog/dimensions';
import { issueAt, type ValidationIssue } from '../http/errors';
import type { Filter } from '../filters/filter-schema';
import { groupParts } from '../filters/filter-tree';

/**
 * A query's `filters` narrows each family of measures by that family's conditions only. An `and`
 * can hold conditions of several families (each family keeps its own); an `or` or `not` group
 * whose conditions span families has no per-family meaning and is rejected.
 */
export const familyOfField = (field: string): DimensionFamily => field.split('.')[0] as DimensionFamily;

function familiesOf(filter: Filter, into = new Set<DimensionFamily>()): Set<DimensionFamily> {
  if ('field' in filter) into.add(familyOfField(filter.field));
  else for (const [child] of groupParts(filter).children) familiesOf(child, into);
  return into;
}

/** The outermost `or`/`not` groups that mix families. */
export function mixedFamilyIssues(filter: Filter, pathPrefix: readonly string[] = []): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const visit = (node: Filter, path: string[]) => {
    if ('field' in node) return;
    const { operator, children } = groupParts(node, path);
    const families = familiesOf(node);
    if (operator !== 'and' && families.size > 1) {
      issues.push(
        issueAt(path, `A '${operator}' group cannot mix fields of ${[...families].join(' and ')}: a condition narrows the measures of its own namespace; only an 'and' group may combine namespaces`),
      );
      return;
    }
    for (const [child, childPath] of children) visit(child, childPath);
  };
  visit(filter, [...pathPrefix]);
  return issues;
}

/** The part of a (validated) filter that applies to one family; undefined when none does. */
export function filterForFamily(filter: Filter | undefined, family: DimensionFamily): Filter | undefined {
  if (!filter) return undefined;
  if ('field' in filter) return familyOfField(filter.field) === family ? filter : undefined;
  if ('and' in filter) {
    const kept = filter.and.map((child) => filterForFamily(child, family)).filter((child): child is Filter => child !== undefined);
    return kept.length === 0 ? undefined : kept.length === 1 ? kept[0] : { and: kept };
  }
  // A validated `or` / `not` holds one family only.
  return familiesOf(filter).has(family) ? filter : undefined;
}
