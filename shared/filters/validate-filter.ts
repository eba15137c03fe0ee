import {
  OTHER_CONTEXT_FIELD_GROUPS,
  findFilterField,
  valueShapeFor,
  type FilterContext,
  type FilterFieldEntry,
} from '../catalog/filter-fields';
import { issueAt, type ValidationIssue } from '../http/errors';
import type { Filter, FilterCondition } from './filter-schema';
import { groupParts } from './filter-tree';

const SHAPE_NAMES = { string: 'a string', number: 'a number', 'string[]': 'a non-empty array of strings' } as const;

/** The first attribute field and the first metric field of a subtree, where it has them. */
interface KindsSeen {
  attribute?: string;
  metric?: string;
}

/**
 * What a context accepts of a well-formed filter, read from the filter-field catalog only:
 * known fields, available in `context`, with an operator and a value the field takes, and no
 * `or` or `not` group mixing basic-details (attribute) and metric fields. That last rule lets a
 * query narrow rows by their details before it computes any measure: only an `and` can be split
 * into a details part and a metrics part.
 */
export function validateFilterForContext(filter: Filter, context: FilterContext, pathPrefix: readonly string[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const mixedGroups: ValidationIssue[] = [];

  const visit = (node: Filter, path: string[]): KindsSeen => {
    if ('field' in node) {
      const entry = checkCondition(node, context, path, issues);
      return entry ? { [entry.kind]: entry.field } : {};
    }
    const { operator, children } = groupParts(node, path);
    const seen: KindsSeen = {};
    for (const [child, childPath] of children) {
      const inner = visit(child, childPath);
      seen.attribute ??= inner.attribute;
      seen.metric ??= inner.metric;
    }
    if (operator !== 'and' && seen.attribute !== undefined && seen.metric !== undefined) {
      const group = `${operator === 'or' ? 'An' : 'A'} '${operator}' group`;
      const example = `basic-details fields (such as '${seen.attribute}') and metric fields (such as '${seen.metric}')`;
      mixedGroups.push(issueAt(path, `${group} cannot mix ${example}; only an 'and' group may combine them`));
    }
    return seen;
  };
  visit(filter, [...pathPrefix]);

  // Groups are visited inside out; the outermost offending group is the one to report.
  const outermost = mixedGroups.filter((group) => !mixedGroups.some((other) => other !== group && isAncestor(other.path, group.path)));
  return [...issues, ...outermost];
}

function isAncestor(ancestor: readonly string[], path: readonly string[]): boolean {
  return ancestor.length < path.length && ancestor.every((segment, i) => path[i] === segment);
}

function checkCondition(
  condition: FilterCondition,
  context: FilterContext,
  path: string[],
  issues: ValidationIssue[],
): FilterFieldEntry | undefined {
  const { field, op, value } = condition;
  const entry = findFilterField(field);
  if (!entry) {
    const group = field.split('.')[0] ?? '';
    issues.push(
      (OTHER_CONTEXT_FIELD_GROUPS as readonly string[]).includes(group)
        ? issueAt([...path, 'field'], `Field '${field}' is not available in context '${context}'`)
        : issueAt([...path, 'field'], `Unknown filter field '${field}'; GET /db-mgmt/api/filters lists the fields of each context`),
    );
    return undefined;
  }
  if (!entry.applicableContexts.includes(context)) {
    issues.push(
      issueAt(
        [...path, 'field'],
        `Field '${field}' is not available in context '${context}'; it applies to: ${entry.applicableContexts.join(', ')}`,
      ),
    );
    return undefined;
  }
  if (!entry.supportedOperators.includes(op)) {
    issues.push(
      issueAt([...path, 'op'], `Operator '${op}' is not supported for field '${field}'; supported: ${entry.supportedOperators.join(', ')}`),
    );
    return entry;
  }
  const shape = valueShapeFor(entry, op);
  const fits = shape === 'string[]' ? Array.isArray(value) : typeof value === shape;
  if (!fits) {
    issues.push(issueAt([...path, 'value'], `Operator '${op}' on field '${field}' takes ${SHAPE_NAMES[shape]}`));
    return entry;
  }
  if (entry.values) {
    const allowed = entry.values;
    const outside = Array.isArray(value)
      ? value.flatMap((item, i) => (allowed.includes(item) ? [] : [[item, [...path, 'value', String(i)]] as const]))
      : allowed.includes(value as string)
        ? []
        : [[value as string, [...path, 'value']] as const];
    for (const [item, itemPath] of outside) {
      issues.push(issueAt(itemPath, `${JSON.stringify(item)} is not a value of '${field}'; values: ${allowed.join(', ')}`));
    }
  }
  return entry;
}

/** Every field a filter names, once each, in the order they first appear. */
function fieldsOf(filter: Filter, into: Set<string> = new Set()): Set<string> {
  if ('field' in filter) into.add(filter.field);
  else for (const [child] of groupParts(filter).children) fieldsOf(child, into);
  return into;
}

/**
 * The metric fields a filter names, once each: the measures a query must compute before it can
 * evaluate the filter. A metric field's id is its measure's id.
 */
export function metricFieldsOf(filter: Filter): string[] {
  return [...fieldsOf(filter)].filter((field) => findFilterField(field)?.kind === 'metric');
}

export function filterUsesMetrics(filter: Filter): boolean {
  return metricFieldsOf(filter).length > 0;
}
