import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CONDITION_OPERATORS,
  ORDER_EXCLUSION_FIELD_CATALOG,
  ORDER_EXCLUSION_FIELDS,
} from '../../shared/catalog/order-exclusion-fields';
import { toValidationIssues } from '../../shared/http/zod-issues';
import { assignIdentity } from '../../shared/order-settings/assign-identity';
import { defaultOrderSettings, orderSettingsInputSchema, orderSettingsSchema } from '../../shared/schemas/order-settings';
import { objectsWithPaths, validSettings, validSettingsDocument } from '../support/order-settings-fixtures';

function issuesOf(body: unknown) {
  const result = orderSettingsInputSchema.safeParse(body);
  // As the client sees them: the internal problem code is not part of the error body.
  return result.success ? [] : toValidationIssues(result.error).map(({ code: _code, ...issue }) => issue);
}

const withCondition = (condition: Record<string, unknown>) =>
  validSettings({
    exclusionFilters: [{ name: 'f', enabled: true, conditionGroups: [{ logic: 'or', conditions: [condition] }] }],
  });
const CONDITION_PATH = ['exclusionFilters', '0', 'conditionGroups', '0', 'conditions', '0'];

describe('order settings input: required fields and types', () => {
  it.each(['countPendingOrders', 'countVoidedOrders', 'refundDateAttribution', 'exclusionFilters'])(
    'rejects a body without %s, naming it',
    (field) => {
      const body: Record<string, unknown> = validSettings();
      delete body[field];
      expect(issuesOf(body)).toEqual([expect.objectContaining({ key: field, path: [field] })]);
    },
  );

  it.each([['true'], [1], [null], ['false']])('rejects the non-boolean %j in countPendingOrders and countVoidedOrders', (value) => {
    expect(issuesOf(validSettings({ countPendingOrders: value }))[0]?.path).toEqual(['countPendingOrders']);
    expect(issuesOf(validSettings({ countVoidedOrders: value }))[0]?.path).toEqual(['countVoidedOrders']);
  });

  it('accepts both refund date attributions and nothing else', () => {
    expect(issuesOf(validSettings({ refundDateAttribution: 'order_date' }))).toEqual([]);
    expect(issuesOf(validSettings({ refundDateAttribution: 'refund_date' }))).toEqual([]);
    expect(issuesOf(validSettings({ refundDateAttribution: 'original_order_date' }))[0]?.key).toBe('refundDateAttribution');
  });
});

describe('order settings input: limits of spec section 8', () => {
  const filterWith = (groups: number, conditionsPerGroup: number) => ({
    name: 'f',
    enabled: true,
    conditionGroups: Array.from({ length: groups }, () => ({
      logic: 'and',
      conditions: Array.from({ length: conditionsPerGroup }, () => ({ field: 'tags', operator: 'array_includes', value: 'x' })),
    })),
  });

  it('accepts 0 and 50 filters and rejects 51', () => {
    expect(issuesOf(validSettings({ exclusionFilters: [] }))).toEqual([]);
    expect(issuesOf(validSettings({ exclusionFilters: Array.from({ length: 50 }, () => filterWith(1, 1)) }))).toEqual([]);
    expect(issuesOf(validSettings({ exclusionFilters: Array.from({ length: 51 }, () => filterWith(1, 1)) }))[0]?.path).toEqual([
      'exclusionFilters',
    ]);
  });

  it('accepts 1 to 20 groups per filter and rejects 0 and 21', () => {
    expect(issuesOf(validSettings({ exclusionFilters: [filterWith(20, 1)] }))).toEqual([]);
    for (const groups of [0, 21]) {
      expect(issuesOf(validSettings({ exclusionFilters: [filterWith(groups, 1)] }))[0]?.path).toEqual([
        'exclusionFilters',
        '0',
        'conditionGroups',
      ]);
    }
  });

  it('accepts 1 to 20 conditions per group and rejects 0 and 21', () => {
    expect(issuesOf(validSettings({ exclusionFilters: [filterWith(1, 20)] }))).toEqual([]);
    for (const conditions of [0, 21]) {
      expect(issuesOf(validSettings({ exclusionFilters: [filterWith(1, conditions)] }))[0]?.path).toEqual([
        'exclusionFilters',
        '0',
        'conditionGroups',
        '0',
        'conditions',
      ]);
    }
  });

  it('accepts names of 1 and 100 characters and rejects 0 and 101', () => {
    const named = (name: string) => validSettings({ exclusionFilters: [{ ...filterWith(1, 1), name }] });
    expect(issuesOf(named('a'))).toEqual([]);
    expect(issuesOf(named('a'.repeat(100)))).toEqual([]);
    expect(issuesOf(named('😀'.repeat(100)))).toEqual([]);
    expect(issuesOf(named(''))[0]?.path).toEqual(['exclusionFilters', '0', 'name']);
    expect(issuesOf(named('a'.repeat(101)))[0]?.path).toEqual(['exclusionFilters', '0', 'name']);
  });
});

describe('order settings input: the operator table of spec 2.4', () => {
  const pairs = ORDER_EXCLUSION_FIELDS.flatMap((field) => CONDITION_OPERATORS.map((operator) => [field, operator] as const));

  it.each(pairs)('%s with %s is accepted exactly when the catalog lists it', (field, operator) => {
    // Prepare: a value of the right type when the pair is allowed, so only the pair decides.
    const kind = ORDER_EXCLUSION_FIELD_CATALOG[field].operators[operator];
    const value = kind === 'number' ? 5 : kind === 'string[]' ? ['a'] : 'a';
    // Act
    const issues = issuesOf(withCondition({ field, operator, value }));
    // Assess
    if (kind) expect(issues).toEqual([]);
    else expect(issues).toEqual([expect.objectContaining({ key: 'operator', path: [...CONDITION_PATH, 'operator'] })]);
  });

  it.each([
    ['sourceName', 'in', 'pos', 'an array of strings for in'],
    ['sourceName', 'not_in', 'pos', 'an array of strings for not_in'],
    ['paymentGateway', 'in', 'stripe', 'an array of strings for in'],
    ['sourceName', 'equals', ['pos'], 'a string for equals'],
    ['value', 'greater_than', '100', 'a number, not a numeric string'],
    ['value', 'equals', true, 'a number, not a boolean'],
    ['tags', 'array_includes', 5, 'a string or array of strings'],
    ['tags', 'array_includes_any', [1], 'strings inside the array'],
  ])('rejects %s %s with value %j (%s)', (field, operator, value, _reason) => {
    expect(issuesOf(withCondition({ field, operator, value }))[0]?.path.slice(0, CONDITION_PATH.length + 1)).toEqual([
      ...CONDITION_PATH,
      'value',
    ]);
  });

  it('requires a value for every operator the table allows', () => {
    expect(issuesOf(withCondition({ field: 'sourceName', operator: 'equals' }))).toEqual([
      expect.objectContaining({ key: 'value', path: [...CONDITION_PATH, 'value'] }),
    ]);
  });

  it('rejects an unknown field, naming it', () => {
    expect(issuesOf(withCondition({ field: 'country', operator: 'equals', value: 'US' }))[0]?.path).toEqual([
      ...CONDITION_PATH,
      'field',
    ]);
  });
});

describe('order settings input: ids', () => {
  it('requires condition ids to be version 4 UUIDs', () => {
    const v1 = 'a8098c1a-f86e-11da-bd1a-00112444be1e';
    expect(issuesOf(withCondition({ id: v1, field: 'sourceName', operator: 'equals', value: 'x' }))[0]?.path).toEqual([
      ...CONDITION_PATH,
      'id',
    ]);
  });

  it('rejects a filter id that is not a UUID', () => {
    const body = validSettings();
    (body.exclusionFilters[0] as Record<string, unknown>).id = 'filter-1';
    expect(issuesOf(body)[0]?.path).toEqual(['exclusionFilters', '0', 'id']);
  });

  it('rejects the same id used twice, since it could not keep two identities', () => {
    const id = '0b0ad1b8-6a4e-4d63-9e0e-7d5f1f9c7a11';
    const filter = validSettings().exclusionFilters[0]!;
    const body = validSettings({ exclusionFilters: [{ ...filter, id }, { ...filter, id }] });
    expect(issuesOf(body)).toEqual([expect.objectContaining({ message: `Duplicate id '${id}'`, path: ['exclusionFilters', '1', 'id'] })]);
  });
});

describe('order settings input: properties', () => {
  it('accepts any well-formed document, and what the server returns for it is accepted back unchanged', () => {
    fc.assert(
      fc.property(validSettingsDocument, fc.date({ noInvalidDate: true, min: new Date('2000-01-01'), max: new Date('2100-01-01') }), (document, when) => {
        // Act: validate, assign identity as PUT does, then send the response back as a new PUT.
        const input = orderSettingsInputSchema.parse(document);
        const stored = assignIdentity(input, defaultOrderSettings(), when);
        const resent = orderSettingsInputSchema.parse(JSON.parse(JSON.stringify(stored)));
        const restored = assignIdentity(resent, stored, new Date(when.getTime() + 1000));
        // Assess: the stored shape is valid, and the round trip keeps every id and createdAt.
        expect(orderSettingsSchema.parse(stored)).toEqual(stored);
        expect(restored.exclusionFilters.map((f) => [f.id, f.createdAt])).toEqual(stored.exclusionFilters.map((f) => [f.id, f.createdAt]));
        expect(JSON.stringify(restored.exclusionFilters.map((f) => f.conditionGroups))).toBe(
          JSON.stringify(stored.exclusionFilters.map((f) => f.conditionGroups)),
        );
      }),
      { numRuns: 200 },
    );
  });

  it('rejects an unknown key at any level, reporting exactly where it is', () => {
    fc.assert(
      fc.property(validSettingsDocument, fc.nat(), fc.string({ minLength: 1, maxLength: 12 }), (generated, pick, unknownKey) => {
        const document = structuredClone(generated);
        const targets = objectsWithPaths(document);
        const target = targets[pick % targets.length]!;
        fc.pre(!Object.hasOwn(target.object, unknownKey) && !['__proto__', 'constructor'].includes(unknownKey));
        // Known optional keys are not unknown; skip those names.
        fc.pre(!['id', 'value', 'createdAt', 'updatedAt'].includes(unknownKey));
        target.object[unknownKey] = 'surprise';
        const issues = issuesOf(document);
        expect(issues).toContainEqual({ message: `Unknown key '${unknownKey}' is not allowed`, key: unknownKey, path: [...target.path, unknownKey] });
      }),
      { numRuns: 300 },
    );
  });
});
