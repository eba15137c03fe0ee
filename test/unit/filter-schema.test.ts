import fc from 'fast-check';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { FILTER_LIMITS, filterSchema, parseFilter } from '../../shared/filters/filter-schema';
import { toValidationIssues } from '../../shared/http/zod-issues';
import { filterTree, grammarCondition, nameConditions, nestedGroups } from '../support/filter-fixtures';

/** The grammar as a query body uses it, so paths are checked from the body root. */
const body = z.strictObject({ filters: z.optional(filterSchema) });

function issuesOf(filters: unknown) {
  const result = body.safeParse({ filters });
  return result.success ? [] : toValidationIssues(result.error);
}

const condition = { field: 'channel.ad_name', op: 'contains', value: 'spring' };

describe('filter grammar: well-formed filters', () => {
  it('accepts every tree of conditions and and/or/not groups within the bounds, and returns it unchanged', () => {
    fc.assert(
      fc.property(filterTree(grammarCondition), (filter) => {
        const result = body.safeParse({ filters: filter });
        expect(result.success && result.data.filters).toEqual(filter);
      }),
    );
  });

  it('accepts each value type of the grammar: string, number, boolean, array of strings', () => {
    for (const value of ['x', '', 3.5, -1, 0, true, false, ['a'], ['a', 'b']]) {
      expect(issuesOf({ field: 'any.field', op: 'equals', value })).toEqual([]);
    }
  });

  it('is optional in a body', () => {
    expect(body.safeParse({}).success).toBe(true);
  });
});

describe('filter grammar: malformed filters get one precise issue where the mistake is', () => {
  it.each([
    ['a condition without value', { field: 'a.b', op: 'equals' }, ['filters', 'value'], 'A condition needs a value'],
    ['a condition without op', { field: 'a.b', value: 1 }, ['filters', 'op'], 'A condition needs an op'],
    ['a condition without field', { op: 'equals', value: 1 }, ['filters', 'field'], expect.stringContaining('A condition needs a field')],
    ['an empty field id', { field: '', op: 'equals', value: 1 }, ['filters', 'field'], 'A field id holds 1 to 100 characters'],
    ['an unknown operator', { field: 'a.b', op: 'eq', value: 1 }, ['filters', 'op'], expect.stringContaining('Unknown operator "eq"; operators: equals,')],
    ['a null value', { field: 'a.b', op: 'equals', value: null }, ['filters', 'value'], expect.stringContaining('A value is a string, a number')],
    ['an object value', { field: 'a.b', op: 'equals', value: { x: 1 } }, ['filters', 'value'], expect.stringContaining('A value is a string')],
    ['an empty array value', { field: 'a.b', op: 'in', value: [] }, ['filters', 'value'], 'An array value holds 1 to 100 strings'],
    ['an array with a number', { field: 'a.b', op: 'in', value: ['a', 3] }, ['filters', 'value', '1'], expect.any(String)],
    ['an unknown key on a condition', { ...condition, negate: true }, ['filters', 'negate'], "Unknown key 'negate' is not allowed"],
    ['an unknown key on a group', { and: [condition], label: 'x' }, ['filters', 'label'], "Unknown key 'label' is not allowed"],
    ['an empty and', { and: [] }, ['filters', 'and'], 'A group holds 1 to 20 filters'],
    ['an or that is not an array', { or: condition }, ['filters', 'or'], 'A group holds an array of filters'],
    ['a not of an array', { not: [condition] }, ['filters', 'not'], expect.stringContaining('A filter is an object')],
    ['a string where a filter goes', { and: [condition, 'channel.ad_name = x'] }, ['filters', 'and', '1'], expect.stringContaining('A filter is an object')],
    ['null', null, ['filters'], expect.stringContaining('A filter is an object')],
    ['an array at the top', [condition], ['filters'], expect.stringContaining('A filter is an object')],
    ['two group keys in one object', { and: [condition], or: [condition] }, ['filters'], expect.stringContaining("exactly one of 'and', 'or', 'not'")],
  ])('%s', (_, filters, path, message) => {
    expect(issuesOf(filters)).toEqual([{ message, key: path.at(-1), path }]);
  });

  it("tells a client who wrote 'operator' (the order-settings spelling) that filters say 'op'", () => {
    expect(issuesOf({ field: 'a.b', operator: 'equals', value: 'x' })).toEqual(
      expect.arrayContaining([
        { message: "Unknown key 'operator': a filter condition names its operator 'op'", key: 'operator', path: ['filters', 'operator'] },
      ]),
    );
  });

  it('reports every malformed node of a filter at once, each at its own path', () => {
    const issues = issuesOf({ or: [{ field: 'a.b', op: 'equals' }, condition, { not: { and: [] } }] });
    expect(issues.map((issue) => issue.path)).toEqual([
      ['filters', 'or', '0', 'value'],
      ['filters', 'or', '2', 'not', 'and'],
    ]);
  });
});

describe('filter grammar: bounds', () => {
  it(`accepts groups nested ${FILTER_LIMITS.maxDepth} deep and rejects a deeper group at its own path`, () => {
    expect(issuesOf(nestedGroups(FILTER_LIMITS.maxDepth))).toEqual([]);

    const issues = issuesOf(nestedGroups(FILTER_LIMITS.maxDepth + 1));

    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toBe('Groups nest at most 5 levels deep');
    // The outermost five groups are fine; the sixth, where the path ends, is the one too deep.
    expect(issues[0]?.path).toEqual(['filters', 'not', 'or', '0', 'and', '0', 'not', 'or', '0']);
  });

  it('answers a hostile nesting quickly with an issue, without exhausting the stack', () => {
    let filter: unknown = condition;
    for (let i = 0; i < 100_000; i++) filter = { not: filter };
    const started = performance.now();

    const issues = issuesOf(filter);

    expect(issues).toEqual([expect.objectContaining({ message: 'Groups nest at most 5 levels deep' })]);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it(`accepts ${FILTER_LIMITS.maxConditions} conditions in a filter and rejects one more, at the filter itself`, () => {
    const split = (conditions: unknown[]) => ({ or: [{ and: conditions.slice(0, 20) }, { and: conditions.slice(20, 40) }, { and: conditions.slice(40) }] });
    expect(issuesOf(split(nameConditions(FILTER_LIMITS.maxConditions)))).toEqual([]);
    expect(issuesOf(split(nameConditions(FILTER_LIMITS.maxConditions + 1)))).toEqual([
      { message: 'A filter holds at most 50 conditions', key: 'filters', path: ['filters'] },
    ]);
  });

  it(`accepts ${FILTER_LIMITS.minGroupItems} to ${FILTER_LIMITS.maxGroupItems} items in an and/or group`, () => {
    for (const op of ['and', 'or']) {
      expect(issuesOf({ [op]: nameConditions(1) })).toEqual([]);
      expect(issuesOf({ [op]: nameConditions(20) })).toEqual([]);
      expect(issuesOf({ [op]: nameConditions(21) })).toEqual([{ message: 'A group holds 1 to 20 filters', key: op, path: ['filters', op] }]);
    }
  });

  it(`accepts string values up to ${FILTER_LIMITS.valueStringLength} characters, alone or in an array`, () => {
    const ok = 'x'.repeat(500);
    const tooLong = 'x'.repeat(501);
    expect(issuesOf({ field: 'a.b', op: 'equals', value: ok })).toEqual([]);
    expect(issuesOf({ field: 'a.b', op: 'in', value: [ok] })).toEqual([]);
    expect(issuesOf({ field: 'a.b', op: 'equals', value: tooLong })[0]).toMatchObject({ path: ['filters', 'value'] });
    expect(issuesOf({ field: 'a.b', op: 'in', value: ['a', tooLong] })[0]).toMatchObject({ path: ['filters', 'value', '1'] });
  });

  it(`accepts ${FILTER_LIMITS.minValueArrayItems} to ${FILTER_LIMITS.maxValueArrayItems} items in an array value`, () => {
    const items = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    expect(issuesOf({ field: 'a.b', op: 'in', value: items(100) })).toEqual([]);
    expect(issuesOf({ field: 'a.b', op: 'in', value: items(101) })).toEqual([
      { message: 'An array value holds 1 to 100 strings', key: 'value', path: ['filters', 'value'] },
    ]);
  });

  it('accepts field ids up to 100 characters', () => {
    expect(issuesOf({ field: `a.${'b'.repeat(98)}`, op: 'equals', value: 1 })).toEqual([]);
    expect(issuesOf({ field: `a.${'b'.repeat(99)}`, op: 'equals', value: 1 })[0]?.path).toEqual(['filters', 'field']);
  });

  it('stops after 20 issues: a broken filter is broken the same way everywhere', () => {
    const broken = { or: Array.from({ length: 20 }, () => ({ and: Array.from({ length: 3 }, () => ({ field: 'a.b' })) })) };
    // 60 broken conditions of 3 issues each; the walk stops once 20 are in (the last node's may overshoot).
    const { length } = parseFilter(broken).issues;
    expect(length).toBeGreaterThanOrEqual(20);
    expect(length).toBeLessThanOrEqual(22);
  });
});

describe('parseFilter', () => {
  it('locates issues under the prefix it is given', () => {
    expect(parseFilter({ and: [{}] }, ['body', 'where']).issues.map((issue) => issue.path)).toEqual([
      ['body', 'where', 'and', '0', 'field'],
      ['body', 'where', 'and', '0', 'op'],
      ['body', 'where', 'and', '0', 'value'],
    ]);
  });
});
