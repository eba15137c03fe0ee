import fc from 'fast-check';
import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { FILTER_FIELDS, FILTER_OPERATORS, findFilterField, type FilterFieldEntry } from '../../shared/catalog/filter-fields';
import {
  filterSchemaForContext,
  filterUsesMetrics,
  metricFieldsOf,
  validateFilterForContext,
  type Filter,
  type FilterCondition,
} from '../../shared/filters/filter-schema';
import { toValidationIssues } from '../../shared/http/zod-issues';
import { attributeEntries, filterTree, metricEntries, validConditionOn, validValueFor } from '../support/filter-fixtures';

const validate = (filter: Filter) => validateFilterForContext(filter, 'query_ads', ['filters']);
/** In the first context the field applies to: every field of the catalog is checked where it is offered. */
const validateWhereOffered = (condition: FilterCondition) =>
  validateFilterForContext(condition, findFilterField(condition.field)!.applicableContexts[0]!, ['filters']);

const name = (value = 'Spring'): FilterCondition => ({ field: 'channel.ad_name', op: 'contains', value });
const spend = (value = 10): FilterCondition => ({ field: 'channel.spend', op: 'greater_than', value });

describe('fields and operators: the validator agrees with the catalog for every pair', () => {
  const pairs = FILTER_FIELDS.flatMap((entry) => FILTER_OPERATORS.map((op) => [entry.field, op, entry.supportedOperators.includes(op)] as const));

  it.each(pairs)('%s %s: accepted = %s', (field, op, listed) => {
    // Prepare: a value of the shape the operator takes, so only the pairing can be at fault.
    const entry = findFilterField(field)!;
    const value = fc.sample(validValueFor(entry, op), { numRuns: 1, seed: 7 })[0]!;

    // Act
    const issues = validateWhereOffered({ field, op, value });

    // Assess
    if (listed) expect(issues).toEqual([]);
    else {
      expect(issues).toEqual([
        {
          message: `Operator '${op}' is not supported for field '${field}'; supported: ${entry.supportedOperators.join(', ')}`,
          key: 'op',
          path: ['filters', 'op'],
        },
      ]);
    }
  });

  it('accepts any valid condition of the catalog anywhere in an attribute-only tree', () => {
    fc.assert(
      fc.property(filterTree(validConditionOn(attributeEntries)), (filter) => {
        expect(validate(filter)).toEqual([]);
      }),
    );
  });
});

describe('fields a context does not have', () => {
  it.each(['orders.customer_type', 'events.name'])('rejects %s naming the field, the context query_ads and where it applies', (field) => {
    expect(validate({ and: [name(), { field, op: 'equals', value: 'new' }] })).toEqual([
      {
        message: `Field '${field}' is not available in context 'query_ads'; it applies to: ${field.startsWith('orders.') ? 'query_measures, query_attribution' : 'query_measures'}`,
        key: 'field',
        path: ['filters', 'and', '1', 'field'],
      },
    ]);
  });

  it.each(['attribution.source'])(
    'rejects %s naming the field and the context query_ads',
    (field) => {
      expect(validate({ and: [name(), { field, op: 'equals', value: 'new_customer' }] })).toEqual([
        { message: `Field '${field}' is not available in context 'query_ads'`, key: 'field', path: ['filters', 'and', '1', 'field'] },
      ]);
    },
  );

  it.each(['channel.nope', 'channel.Ad_Name', 'spend', 'meta.conversions', 'customer_type'])('rejects the unknown field %j as unknown', (field) => {
    expect(validate({ field, op: 'equals', value: 'x' })).toEqual([
      { message: `Unknown filter field '${field}'; GET /db-mgmt/api/filters lists the fields of each context`, key: 'field', path: ['filters', 'field'] },
    ]);
  });
});

describe('values', () => {
  type Shape = 'string' | 'number' | 'string[]' | 'boolean';
  const sampleOf: Record<Shape, FilterCondition['value']> = { string: 'ACTIVE', number: 3, 'string[]': ['ACTIVE'], boolean: true };
  const shapeFor = (entry: FilterFieldEntry, op: string): Shape => (op === 'in' || op === 'not_in' ? 'string[]' : entry.valueType);
  const wrongShapes = FILTER_FIELDS.flatMap((entry) =>
    entry.supportedOperators.flatMap((op) =>
      (['string', 'number', 'string[]', 'boolean'] as const).filter((shape) => shape !== shapeFor(entry, op)).map((shape) => [entry.field, op, shape] as const),
    ),
  );

  it.each(wrongShapes)('%s %s rejects a %s value, saying what it takes', (field, op, shape) => {
    const issues = validateWhereOffered({ field, op, value: sampleOf[shape] });
    const takes = { string: 'a string', number: 'a number', 'string[]': 'a non-empty array of strings' }[shapeFor(findFilterField(field)!, op) as 'string'];
    expect(issues).toEqual([{ message: `Operator '${op}' on field '${field}' takes ${takes}`, key: 'value', path: ['filters', 'value'] }]);
  });

  it('accepts the three platform identifiers for channel.resource_source and nothing else, naming each bad item', () => {
    for (const value of ['metaIntegration', 'googleIntegration', 'tiktokIntegration']) {
      expect(validate({ field: 'channel.resource_source', op: 'equals', value })).toEqual([]);
    }
    expect(validate({ field: 'channel.resource_source', op: 'not_equals', value: 'facebookIntegration' })).toEqual([
      {
        message: '"facebookIntegration" is not a value of \'channel.resource_source\'; values: metaIntegration, googleIntegration, tiktokIntegration',
        key: 'value',
        path: ['filters', 'value'],
      },
    ]);
    const issues = validate({ field: 'channel.resource_source', op: 'in', value: ['metaIntegration', 'meta', 'MetaIntegration'] });
    expect(issues.map((issue) => issue.path)).toEqual([
      ['filters', 'value', '1'],
      ['filters', 'value', '2'],
    ]);
  });

  it('takes any string for the other attributes (statuses are not enumerated by the spec)', () => {
    expect(validate({ field: 'channel.resource_status', op: 'in', value: ['ACTIVE', 'SOMETHING_NEW'] })).toEqual([]);
  });
});

describe('an or or not group cannot mix basic-details and metric fields', () => {
  it('rejects an or mixing them, at the group', () => {
    expect(validate({ and: [name(), { or: [name(), spend()] }] })).toEqual([
      {
        message:
          "An 'or' group cannot mix basic-details fields (such as 'channel.ad_name') and metric fields (such as 'channel.spend'); only an 'and' group may combine them",
        key: '1',
        path: ['filters', 'and', '1'],
      },
    ]);
  });

  it('rejects a not over a mix, even when the mix inside it is an and', () => {
    expect(validate({ not: { and: [name(), spend()] } })).toEqual([
      expect.objectContaining({ path: ['filters'], message: expect.stringMatching(/^A 'not' group cannot mix/) }),
    ]);
  });

  it('allows and to combine them, at any level', () => {
    expect(validate({ and: [name(), spend()] })).toEqual([]);
    expect(validate({ and: [{ or: [name('a'), name('b')] }, { or: [spend(1), { not: spend(100) }] }] })).toEqual([]);
    expect(validate({ or: [{ and: [name('a'), name('b')] }, { not: name('c') }] })).toEqual([]);
  });

  it('reports only the outermost offending group', () => {
    const issues = validate({ or: [{ or: [name(), spend()] }, { not: { or: [name(), spend()] } }] });
    expect(issues.map((issue) => issue.path)).toEqual([['filters']]);
  });

  it('reports exactly when some or/not group holds both kinds (property, against a reference)', () => {
    const kindsOf = (filter: Filter): Set<string> =>
      'field' in filter
        ? new Set([findFilterField(filter.field)!.kind])
        : new Set(('not' in filter ? [filter.not] : 'and' in filter ? filter.and : filter.or).flatMap((child) => [...kindsOf(child)]));
    const hasMixedOrNot = (filter: Filter): boolean => {
      if ('field' in filter) return false;
      const children = 'not' in filter ? [filter.not] : 'and' in filter ? filter.and : filter.or;
      return (!('and' in filter) && kindsOf(filter).size === 2) || children.some(hasMixedOrNot);
    };
    const leaf = fc.oneof(validConditionOn(attributeEntries), validConditionOn(metricEntries));

    const outcomes = new Set<boolean>();

    fc.assert(
      fc.property(filterTree(leaf), (filter) => {
        const mixing = validate(filter).filter((issue) => issue.message.includes('cannot mix'));
        expect(mixing.length > 0).toBe(hasMixedOrNot(filter));
        expect(validate(filter).length).toBe(mixing.length);
        outcomes.add(hasMixedOrNot(filter));
      }),
    );

    expect(outcomes).toEqual(new Set([true, false]));
  });
});

describe('where issues are located', () => {
  it('prefixes every path with the given prefix, so a body member locates its own issues', () => {
    const filter: Filter = { or: [{ field: 'orders.x', op: 'equals', value: 'y' }, { field: 'channel.ad_id', op: 'contains', value: '1' }] };
    expect(validateFilterForContext(filter, 'query_ads', ['where']).map((issue) => issue.path)).toEqual([
      ['where', 'or', '0', 'field'],
      ['where', 'or', '1', 'op'],
    ]);
  });

  it('filterSchemaForContext reports grammar and catalog issues from the body root', () => {
    const body = z.strictObject({ filters: filterSchemaForContext('query_ads') });
    const issuesOf = (filters: unknown) => {
      const result = body.safeParse({ filters });
      return result.success ? [] : toValidationIssues(result.error);
    };

    expect(issuesOf({ and: [name(), spend()] })).toEqual([]);
    expect(issuesOf({ and: [name(), { field: 'channel.ad_name', op: 'equals' }] }).map((i) => i.path)).toEqual([['filters', 'and', '1', 'value']]);
    expect(issuesOf({ and: [name(), { field: 'orders.customer_type', op: 'equals', value: 'x' }] })).toEqual([
      expect.objectContaining({ path: ['filters', 'and', '1', 'field'], message: "Field 'orders.customer_type' is not available in context 'query_ads'; it applies to: query_measures, query_attribution" }),
    ]);
  });
});

describe('which metrics a filter needs', () => {
  it('lists the metric fields once each, in order of appearance, ignoring attributes and unknown fields', () => {
    const filter: Filter = {
      and: [
        name(),
        { or: [{ field: 'meta.cpm', op: 'less_than', value: 5 }, spend()] },
        { not: { field: 'meta.cpm', op: 'equals', value: 0 } },
        { field: 'orders.x', op: 'equals', value: 1 },
      ],
    };
    expect(metricFieldsOf(filter)).toEqual(['meta.cpm', 'channel.spend']);
    expect(filterUsesMetrics(filter)).toBe(true);
  });

  it('says an attribute-only filter needs none', () => {
    expect(metricFieldsOf({ or: [name(), { not: name('x') }] })).toEqual([]);
    expect(filterUsesMetrics(name())).toBe(false);
  });
});
