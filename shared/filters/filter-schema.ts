import * as z from 'zod/mini';
import { addTransformIssue, withMeta } from '../schemas/zod-mini';
import { FILTER_OPERATORS, type FilterContext } from '../catalog/filter-fields';
import { issueAt, type ValidationIssue } from '../http/errors';
import { toValidationIssues } from '../http/zod-issues';
import { validateFilterForContext } from './validate-filter';

export { filterUsesMetrics, metricFieldsOf, validateFilterForContext } from './validate-filter';

/**
 * The `filters` grammar of query bodies (ARCHITECTURE.md, "Filter grammar"):
 *
 *   Filter    := Group | Condition
 *   Group     := { "and": [Filter, ...] } | { "or": [Filter, ...] } | { "not": Filter }
 *   Condition := { "field": "<group>.<name>", "op": "<operator>", "value": string | number | boolean | string[] }
 *
 * This module checks the shape only; which fields, operators and values a context accepts is
 * `validateFilterForContext`, which reads the filter-field catalog.
 */

/** Bounds on a filter, so that one request cannot make validation or evaluation expensive. */
export const FILTER_LIMITS = {
  /** Groups nested in groups; a sixth level is rejected. */
  maxDepth: 5,
  /** Conditions in the whole filter. */
  maxConditions: 50,
  /** Items of one `and` or `or` group. */
  minGroupItems: 1,
  maxGroupItems: 20,
  fieldLength: 100,
  valueStringLength: 500,
  /** Items of an `in` / `not_in` array. */
  minValueArrayItems: 1,
  maxValueArrayItems: 100,
} as const;

/** A broken filter is usually broken everywhere the same way; past this many, more items do not help. */
const MAX_REPORTED_ISSUES = 20;

const requiredMessage = (what: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? `A condition needs ${what}` : undefined;

const FIELD_LENGTH = `A field id holds 1 to ${FILTER_LIMITS.fieldLength} characters`;

const valueString = z.string().check(
  z.maxLength(FILTER_LIMITS.valueStringLength, {
    error: `A string value holds at most ${FILTER_LIMITS.valueStringLength} characters`,
  }),
);
const ARRAY_SIZE = `An array value holds ${FILTER_LIMITS.minValueArrayItems} to ${FILTER_LIMITS.maxValueArrayItems} strings`;

export const filterValueSchema = z.union(
  [
    valueString,
    z.number(),
    z.boolean(),
    z
      .array(valueString)
      .check(z.minLength(FILTER_LIMITS.minValueArrayItems, { error: ARRAY_SIZE }), z.maxLength(FILTER_LIMITS.maxValueArrayItems, { error: ARRAY_SIZE })),
  ],
  {
    // zod reports some failures of the array branch as the union's own; name the bound then too.
    error: (issue) =>
      issue.input === undefined
        ? 'A condition needs a value'
        : Array.isArray(issue.input)
          ? ARRAY_SIZE
          : 'A value is a string, a number, a boolean or a non-empty array of strings',
  },
);

export const filterConditionSchema = z.strictObject({
  field: z
    .string({ error: requiredMessage('a field, a filter-field id such as "channel.ad_name"') })
    .check(z.minLength(1, { error: FIELD_LENGTH }), z.maxLength(FILTER_LIMITS.fieldLength, { error: FIELD_LENGTH })),
  op: z.enum(FILTER_OPERATORS, {
    error: (issue) =>
      issue.input === undefined
        ? 'A condition needs an op'
        : `Unknown operator ${JSON.stringify(issue.input)}; operators: ${FILTER_OPERATORS.join(', ')}`,
  }),
  value: filterValueSchema,
});

/*
 * The recursive types are written out because zod cannot infer a recursion through the hand-made
 * dispatch below; the leaf, where every rule on values lives, is inferred.
 */
export type FilterCondition = z.output<typeof filterConditionSchema>;
export type FilterGroup = { and: Filter[] } | { or: Filter[] } | { not: Filter };
export type Filter = FilterCondition | FilterGroup;

export const GROUP_OPERATORS = ['and', 'or', 'not'] as const;
export type GroupOperator = (typeof GROUP_OPERATORS)[number];

const GROUP_SIZE = `A group holds ${FILTER_LIMITS.minGroupItems} to ${FILTER_LIMITS.maxGroupItems} filters`;
const groupItems = z
  .array(z.unknown(), { error: (issue) => (issue.code === 'invalid_type' ? 'A group holds an array of filters' : undefined) })
  .check(z.minLength(FILTER_LIMITS.minGroupItems, { error: GROUP_SIZE }), z.maxLength(FILTER_LIMITS.maxGroupItems, { error: GROUP_SIZE }));
const GROUP_SHAPES: Record<GroupOperator, z.ZodMiniType> = {
  and: z.strictObject({ and: groupItems }),
  or: z.strictObject({ or: groupItems }),
  not: z.strictObject({ not: z.unknown() }),
};

const NODE_SHAPE = "A filter is an object: a condition {field, op, value} or a group {and: [...]}, {or: [...]} or {not: {...}}";

interface ParseState {
  rootPath: readonly string[];
  conditions: number;
  issues: ValidationIssue[];
}

/**
 * Parses one node, choosing its shape by its keys. A plain zod union would try every shape and
 * report the failures of the wrong ones ("field is required" for a broken `and` group); choosing
 * first makes each message about what the client meant to send. Depth is checked before
 * descending, so a hostile nesting cannot exhaust the stack.
 */
function parseNode(input: unknown, path: string[], depth: number, state: ParseState): Filter | undefined {
  if (state.issues.length >= MAX_REPORTED_ISSUES) return undefined;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    state.issues.push(issueAt(path, NODE_SHAPE));
    return undefined;
  }
  const groupKeys = GROUP_OPERATORS.filter((key) => Object.hasOwn(input, key));
  const [groupKey] = groupKeys;
  if (groupKey === undefined) return parseCondition(input, path, state);
  if (groupKeys.length > 1) {
    const found = groupKeys.map((key) => `'${key}'`).join(' and ');
    state.issues.push(issueAt(path, `A group holds exactly one of 'and', 'or', 'not'; this one has ${found}. Nest groups to combine them`));
    return undefined;
  }
  if (depth >= FILTER_LIMITS.maxDepth) {
    state.issues.push(issueAt(path, `Groups nest at most ${FILTER_LIMITS.maxDepth} levels deep`));
    return undefined;
  }
  const shape = GROUP_SHAPES[groupKey].safeParse(input);
  if (!shape.success) {
    state.issues.push(...toValidationIssues(shape.error, path));
    return undefined;
  }
  const members = input as Record<GroupOperator, unknown>;
  if (groupKey === 'not') {
    const inner = parseNode(members.not, [...path, 'not'], depth + 1, state);
    return inner && { not: inner };
  }
  const items = (members[groupKey] as unknown[]).map((item, i) => parseNode(item, [...path, groupKey, String(i)], depth + 1, state));
  if (items.some((item) => item === undefined)) return undefined;
  return (groupKey === 'and' ? { and: items } : { or: items }) as FilterGroup;
}

function parseCondition(input: object, path: string[], state: ParseState): FilterCondition | undefined {
  state.conditions += 1;
  if (state.conditions > FILTER_LIMITS.maxConditions) {
    if (state.conditions === FILTER_LIMITS.maxConditions + 1) {
      state.issues.push(issueAt(state.rootPath, `A filter holds at most ${FILTER_LIMITS.maxConditions} conditions`));
    }
    return undefined;
  }
  const result = filterConditionSchema.safeParse(input);
  if (result.success) return result.data;
  state.issues.push(
    ...toValidationIssues(result.error, path).map((issue) =>
      // Order-exclusion conditions say `operator`; query filters say `op`. Say so where it happens.
      issue.key === 'operator' && issue.path.length === path.length + 1
        ? { ...issue, message: "Unknown key 'operator': a filter condition names its operator 'op'" }
        : issue,
    ),
  );
  return undefined;
}

/** Parses a filter, reporting every problem with its path under `pathPrefix`. */
export function parseFilter(input: unknown, pathPrefix: readonly string[] = []): { filter?: Filter; issues: ValidationIssue[] } {
  const state: ParseState = { rootPath: pathPrefix, conditions: 0, issues: [] };
  const filter = parseNode(input, [...pathPrefix], 0, state);
  return state.issues.length === 0 && filter ? { filter, issues: [] } : { issues: state.issues };
}

/**
 * Where a JSON Schema of a body finds the grammar: the parser below is code, which zod cannot
 * describe, so the OpenAPI document (lib/openapi) carries the grammar as its `Filter` component.
 */
export const FILTER_JSON_SCHEMA_REF = '#/components/schemas/Filter';

function filterSchemaWith(check: (filter: Filter) => ValidationIssue[]) {
  return withMeta(
    z.pipe(
      z.unknown(),
      z.transform((input: unknown, ctx): Filter => {
        const { filter, issues } = parseFilter(input);
        const problems = filter ? check(filter) : issues;
        for (const problem of problems) addTransformIssue(ctx, { message: problem.message, path: problem.path, input });
        return problems.length === 0 && filter ? filter : z.NEVER;
      }),
    ),
    { $ref: FILTER_JSON_SCHEMA_REF, description: 'A filter tree; the fields, operators and values a query accepts are listed by GET /db-mgmt/api/filters' },
  );
}

/** The grammar alone: any field id, any operator, any value of the grammar's types. */
export const filterSchema = filterSchemaWith(() => []);

/** The grammar plus what `context` accepts, for a query body's `filters` member. */
export function filterSchemaForContext(context: FilterContext) {
  return filterSchemaWith((filter) => validateFilterForContext(filter, context, []));
}
