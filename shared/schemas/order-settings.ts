import * as z from 'zod/mini';
import './zod-mini';
import {
  CONDITION_OPERATORS,
  ORDER_EXCLUSION_FIELD_CATALOG,
  ORDER_EXCLUSION_FIELDS,
  allowedOperators,
  type ConditionValueKind,
} from '../catalog/order-exclusion-fields';
import { whenMembersValid } from './cross-field';
import { isoInstantSchema } from './date-time';
import { displayName } from './display-name';

/** Limits of spec section 8, plus bounds on values the spec leaves open (documented in the README). */
export const ORDER_SETTINGS_LIMITS = {
  filters: 50,
  groupsPerFilter: 20,
  conditionsPerGroup: 20,
  valueStringLength: 500,
  valueArrayItems: 100,
} as const;

export const REFUND_DATE_ATTRIBUTIONS = ['refund_date', 'order_date'] as const;

const conditionValue = z.union([
  z.string().check(z.maxLength(ORDER_SETTINGS_LIMITS.valueStringLength)),
  z.number(),
  z.boolean(),
  z.array(z.string().check(z.maxLength(ORDER_SETTINGS_LIMITS.valueStringLength))).check(z.minLength(1), z.maxLength(ORDER_SETTINGS_LIMITS.valueArrayItems)),
]);

const VALUE_KIND_MATCHES: Record<ConditionValueKind, (value: unknown) => boolean> = {
  string: (value) => typeof value === 'string',
  number: (value) => typeof value === 'number',
  'string[]': Array.isArray,
  'string | string[]': (value) => typeof value === 'string' || Array.isArray(value),
};

export const conditionSchema = z
  .strictObject({
    id: z.optional(z.uuidv4({ error: 'Must be a version 4 UUID' })),
    field: z.enum(ORDER_EXCLUSION_FIELDS),
    operator: z.enum(CONDITION_OPERATORS),
    value: z.optional(conditionValue),
  })
  .check(
    z.superRefine((condition, ctx) => {
      const kind = ORDER_EXCLUSION_FIELD_CATALOG[condition.field].operators[condition.operator];
      if (kind === undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['operator'],
          message: `Operator '${condition.operator}' is not allowed for field '${condition.field}'; allowed: ${allowedOperators(condition.field).join(', ')}`,
        });
        return;
      }
      if (condition.value === undefined) {
        ctx.addIssue({ code: 'custom', path: ['value'], message: `A value is required for operator '${condition.operator}'` });
      } else if (!VALUE_KIND_MATCHES[kind](condition.value)) {
        ctx.addIssue({
          code: 'custom',
          path: ['value'],
          message: `Operator '${condition.operator}' on field '${condition.field}' takes a value of type ${kind}`,
        });
      }
    }),
  );

export const conditionGroupSchema = z.strictObject({
  id: z.optional(z.uuid({ error: 'Must be a UUID' })),
  logic: z.enum(['and', 'or']),
  conditions: z.array(conditionSchema).check(z.minLength(1), z.maxLength(ORDER_SETTINGS_LIMITS.conditionsPerGroup)),
});

export const exclusionFilterSchema = z.strictObject({
  id: z.optional(z.uuid({ error: 'Must be a UUID' })),
  name: displayName,
  enabled: z.boolean(),
  conditionGroups: z.array(conditionGroupSchema).check(z.minLength(1), z.maxLength(ORDER_SETTINGS_LIMITS.groupsPerFilter)),
  // Accepted so that a document read with GET can be sent back unchanged; the server always
  // assigns both (spec 4.1 rules 3 and 4), so the values sent are ignored.
  createdAt: z.optional(isoInstantSchema),
  updatedAt: z.optional(isoInstantSchema),
});

const orderSettingsMembers = {
  countPendingOrders: z.boolean(),
  countVoidedOrders: z.boolean(),
  refundDateAttribution: z.enum(REFUND_DATE_ATTRIBUTIONS),
  exclusionFilters: z.array(exclusionFilterSchema).check(z.maxLength(ORDER_SETTINGS_LIMITS.filters)),
};

/** One id names one entry; a repeated id would make "keep this entry's identity" ambiguous. */
function checkUniqueIds(settings: { exclusionFilters: z.output<typeof exclusionFilterSchema>[] }, ctx: z.core.$RefinementCtx): void {
  const seen = new Set<string>();
  const check = (id: string | undefined, path: (string | number)[]) => {
    if (id === undefined) return;
    if (seen.has(id)) ctx.addIssue({ code: 'custom', path, message: `Duplicate id '${id}'` });
    seen.add(id);
  };
  settings.exclusionFilters.forEach((filter, f) => {
    check(filter.id, ['exclusionFilters', f, 'id']);
    filter.conditionGroups.forEach((group, g) => {
      check(group.id, ['exclusionFilters', f, 'conditionGroups', g, 'id']);
      group.conditions.forEach((condition, c) => check(condition.id, ['exclusionFilters', f, 'conditionGroups', g, 'conditions', c, 'id']));
    });
  });
}

/** The PUT body: the complete settings, every field required (spec 4.1). */
export const orderSettingsInputSchema = z.strictObject(orderSettingsMembers).check(z.superRefine(checkUniqueIds, whenMembersValid));

/**
 * `orderSettings` of a query body (issue P7, upstream notes 2.4): the PUT body's members and rules,
 * each optional with the spec's default, and `original_order_date` (the cohort example's word)
 * accepted as an alias of `order_date`. Ids and timestamps may be sent (a document read with GET
 * can be pasted in) and are ignored.
 */
export const queryOrderSettingsSchema = z
  .strictObject({
    countPendingOrders: z._default(orderSettingsMembers.countPendingOrders, false),
    countVoidedOrders: z._default(orderSettingsMembers.countVoidedOrders, false),
    refundDateAttribution: z.pipe(
      z._default(z.enum([...REFUND_DATE_ATTRIBUTIONS, 'original_order_date']), 'refund_date'),
      z.transform((value): (typeof REFUND_DATE_ATTRIBUTIONS)[number] => (value === 'original_order_date' ? 'order_date' : value)),
    ),
    exclusionFilters: z._default(orderSettingsMembers.exclusionFilters, []),
  })
  .check(z.superRefine(checkUniqueIds, whenMembersValid));

export type QueryOrderSettings = z.output<typeof queryOrderSettingsSchema>;

export type OrderSettingsInput = z.output<typeof orderSettingsInputSchema>;

/**
 * The settings as stored and returned: the input shape with every id present and the filter
 * timestamps set. Reads from the store are parsed with it, so a corrupt item fails loudly.
 */
const storedConditionSchema = z.strictObject({
  id: z.uuid(),
  field: z.enum(ORDER_EXCLUSION_FIELDS),
  operator: z.enum(CONDITION_OPERATORS),
  value: z.optional(conditionValue),
});
const storedGroupSchema = z.extend(conditionGroupSchema, {
  id: z.uuid(),
  conditions: z.array(storedConditionSchema),
});
const storedFilterSchema = z.extend(exclusionFilterSchema, {
  id: z.uuid(),
  conditionGroups: z.array(storedGroupSchema),
  createdAt: z.iso.datetime({ offset: true }),
  updatedAt: z.iso.datetime({ offset: true }),
});
export const orderSettingsSchema = z.strictObject({
  countPendingOrders: z.boolean(),
  countVoidedOrders: z.boolean(),
  refundDateAttribution: z.enum(REFUND_DATE_ATTRIBUTIONS),
  exclusionFilters: z.array(storedFilterSchema),
});

export type OrderSettings = z.output<typeof orderSettingsSchema>;
export type ExclusionFilter = OrderSettings['exclusionFilters'][number];
export type ConditionGroup = ExclusionFilter['conditionGroups'][number];
export type Condition = ConditionGroup['conditions'][number];

/** What an account has before anyone sets anything (spec 2.1 defaults). */
export function defaultOrderSettings(): OrderSettings {
  return { countPendingOrders: false, countVoidedOrders: false, refundDateAttribution: 'refund_date', exclusionFilters: [] };
}
