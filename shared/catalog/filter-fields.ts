import { AD_PLATFORMS, MEASURES, isAdMeasureId } from './measures';

/**
 * The filter-field catalog (spec 2.6, GET /db-mgmt/api/filters): which fields a query's `filters`
 * may name, in which contexts, with which operators. Validation of every query endpoint's
 * `filters` reads this table and nothing else, so a field is accepted exactly where it is listed.
 */

/** The operators of the filter grammar. Which ones a field takes is its `supportedOperators`. */
export const FILTER_OPERATORS = [
  'equals',
  'not_equals',
  'in',
  'not_in',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
  'greater_than',
  'greater_than_or_equals',
  'less_than',
  'less_than_or_equals',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** One name per query endpoint whose body takes `filters`; a later endpoint adds its own. */
export const FILTER_CONTEXTS = ['query_ads', 'query_measures', 'query_attribution', 'query_cohort'] as const;
export type FilterContext = (typeof FILTER_CONTEXTS)[number];

/**
 * Field groups that belong to query endpoints this service does not answer yet. They have no
 * entries, but a filter that names one of their fields is told it is in the wrong context rather
 * than that the field does not exist.
 */
export const OTHER_CONTEXT_FIELD_GROUPS = ['attribution'] as const;

export interface FilterFieldEntry {
  /** `<group>.<name>` */
  field: string;
  label: string;
  valueType: 'string' | 'number';
  supportedOperators: readonly FilterOperator[];
  applicableContexts: readonly FilterContext[];
  description: string;
  /**
   * `attribute`: a basic detail of the row (ids, names, status); `metric`: a measure computed over
   * the request's date range. An `or` or `not` group cannot mix the two (spec 4.2).
   */
  kind: 'attribute' | 'metric';
  /** The complete set of values the field can take, where the set is closed. */
  values?: readonly string[];
}

/** `channel.resource_source` values: `<platform>Integration`. */
export const AD_RESOURCE_SOURCES = AD_PLATFORMS.map((platform) => `${platform}Integration` as const);

const SOURCE_OPERATORS = ['equals', 'not_equals', 'in', 'not_in'] as const satisfies readonly FilterOperator[];
const ID_OPERATORS = ['equals', 'in', 'not_in'] as const satisfies readonly FilterOperator[];
const NAME_OPERATORS = [
  'equals',
  'not_equals',
  'in',
  'not_in',
  'contains',
  'not_contains',
  'starts_with',
  'ends_with',
] as const satisfies readonly FilterOperator[];
const STATUS_OPERATORS = ['equals', 'not_equals', 'in', 'not_in'] as const satisfies readonly FilterOperator[];
const METRIC_OPERATORS = [
  'equals',
  'not_equals',
  'greater_than',
  'greater_than_or_equals',
  'less_than',
  'less_than_or_equals',
] as const satisfies readonly FilterOperator[];

const EXACT = 'equals, not_equals, in and not_in compare exactly (case-sensitive).';
const NAME_MATCHING = `${EXACT} contains, not_contains, starts_with and ends_with ignore case.`;

function adAttribute(
  field: string,
  label: string,
  supportedOperators: readonly FilterOperator[],
  description: string,
  values?: readonly string[],
  applicableContexts: readonly FilterContext[] = ['query_ads'],
): FilterFieldEntry {
  return {
    field,
    label,
    valueType: 'string',
    supportedOperators,
    applicableContexts,
    description,
    kind: 'attribute',
    ...(values ? { values } : {}),
  };
}

/** Ad attributes that also narrow the channel measures of POST /db-mgmt/api/query. */
const BOTH_QUERIES: readonly FilterContext[] = ['query_ads', 'query_measures'];

const AD_ATTRIBUTE_FIELDS: readonly FilterFieldEntry[] = [
  adAttribute(
    'channel.resource_source',
    'Ad platform',
    SOURCE_OPERATORS,
    `The ad platform the ad runs on: ${AD_RESOURCE_SOURCES.join(', ')}. ${EXACT}`,
    AD_RESOURCE_SOURCES,
    BOTH_QUERIES,
  ),
  adAttribute('channel.account_id', 'Ad account id', ID_OPERATORS, `The platform's id of the ad account. ${EXACT}`, undefined, BOTH_QUERIES),
  adAttribute('channel.campaign_id', 'Campaign id', ID_OPERATORS, `The platform's id of the campaign. ${EXACT}`, undefined, BOTH_QUERIES),
  adAttribute('channel.adset_id', 'Ad set id', ID_OPERATORS, `The platform's id of the ad set (ad group). ${EXACT}`, undefined, BOTH_QUERIES),
  adAttribute('channel.ad_id', 'Ad id', ID_OPERATORS, `The platform's id of the ad. ${EXACT}`, undefined, BOTH_QUERIES),
  adAttribute('channel.resource_name', 'Name', NAME_OPERATORS, `The name of the listed resource, the ad. ${NAME_MATCHING}`),
  adAttribute('channel.account_name', 'Ad account name', NAME_OPERATORS, `The name of the ad account. ${NAME_MATCHING}`),
  adAttribute('channel.campaign_name', 'Campaign name', NAME_OPERATORS, `The name of the campaign. ${NAME_MATCHING}`),
  adAttribute('channel.adset_name', 'Ad set name', NAME_OPERATORS, `The name of the ad set (ad group). ${NAME_MATCHING}`),
  adAttribute('channel.ad_name', 'Ad name', NAME_OPERATORS, `The name of the ad. ${NAME_MATCHING}`),
  adAttribute(
    'channel.resource_status',
    'Status',
    STATUS_OPERATORS,
    `The platform status of the ad, such as ACTIVE or PAUSED. ${EXACT}`,
  ),
  adAttribute(
    'channel.resource_configured_status',
    'Configured status',
    STATUS_OPERATORS,
    `The status the advertiser set on the ad, such as ACTIVE or PAUSED. ${EXACT}`,
  ),
  adAttribute(
    'channel.resource_effective_status',
    'Effective status',
    STATUS_OPERATORS,
    `The status the ad actually has, given its campaign and ad set, such as ACTIVE or CAMPAIGN_PAUSED. ${EXACT}`,
  ),
];

/** Every ad-platform measure can filter the ad listing, under its measure id. */
const AD_METRIC_FIELDS: readonly FilterFieldEntry[] = MEASURES.filter(
  (measure) => isAdMeasureId(measure.id) && measure.contexts.includes('query_ads'),
).map((measure) => ({
  field: measure.id,
  label: measure.title,
  valueType: 'number',
  supportedOperators: METRIC_OPERATORS,
  applicableContexts: ['query_ads'],
  description:
    `${measure.description} A condition compares the ad's value over the whole of the request's dateRange (money in the requested currency). ` +
    'An ad without a value (a ratio with nothing to divide by) matches no comparison; not_equals is its negation.',
  kind: 'metric',
}));

const CODE_OPERATORS = ['equals', 'not_equals', 'in', 'not_in'] as const satisfies readonly FilterOperator[];
const NARROWS_ORDERS = 'Narrows the orders.* measures (and the order parts of core.*).';
const NARROWS_EVENTS = 'Narrows the events.* measures.';

function queryAttribute(
  field: string,
  label: string,
  supportedOperators: readonly FilterOperator[],
  description: string,
  values?: readonly string[],
  // Order fields also narrow the orders an attribution query credits.
  contexts: readonly FilterContext[] = field.startsWith('orders.') ? ['query_measures', 'query_attribution'] : ['query_measures'],
): FilterFieldEntry {
  return adAttribute(field, label, supportedOperators, description, values, contexts);
}

/**
 * Order fields that also narrow the orders an attribution query credits, and pick the customers of
 * POST /db-mgmt/api/query-cohort-analysis by their first counted order.
 */
const ORDER_CONTEXTS: readonly FilterContext[] = ['query_measures', 'query_attribution', 'query_cohort'];
const PICKS_COHORTS = 'In query_cohort it picks which customers form the cohorts, by their first counted order.';

/** Fields of POST /db-mgmt/api/query: a condition narrows the measures of its own namespace. */
const QUERY_FIELDS: readonly FilterFieldEntry[] = [
  queryAttribute('orders.source_name', 'Sales channel', NAME_OPERATORS, `The order's sourceName, e.g. web or pos. ${NARROWS_ORDERS} ${PICKS_COHORTS} ${NAME_MATCHING}`, undefined, ORDER_CONTEXTS),
  queryAttribute('orders.payment_gateway', 'Payment gateway', NAME_OPERATORS, `The order's paymentGateway. ${NARROWS_ORDERS} ${PICKS_COHORTS} ${NAME_MATCHING}`, undefined, ORDER_CONTEXTS),
  queryAttribute('orders.currency', 'Order currency', CODE_OPERATORS, `The currency the order was placed in. ${NARROWS_ORDERS} ${PICKS_COHORTS} ${EXACT}`, undefined, ORDER_CONTEXTS),
  queryAttribute(
    'orders.tag',
    'Order tag',
    NAME_OPERATORS,
    `A tag of the order: a positive operator matches when any tag matches; not_equals, not_in and not_contains when none does. ${NARROWS_ORDERS} ${PICKS_COHORTS} ${NAME_MATCHING}`,
    undefined,
    ORDER_CONTEXTS,
  ),
  queryAttribute(
    'orders.customer_type',
    'Customer type',
    CODE_OPERATORS,
    `new for a customer's first counted order over all stored history, returning for the others (the filter narrows figures, never who is new); new_customer and returning_customer, the upstream service's words, are accepted as the same values. ${NARROWS_ORDERS} ${EXACT}`,
    ['new', 'returning', 'new_customer', 'returning_customer'],
  ),
  queryAttribute('events.name', 'Event name', NAME_OPERATORS, `The event's name. ${NARROWS_EVENTS} ${NAME_MATCHING}`),
  queryAttribute('events.utm_source', 'UTM source', NAME_OPERATORS, `utm_source of the event's page URL. ${NARROWS_EVENTS} ${NAME_MATCHING}`),
  queryAttribute('events.utm_medium', 'UTM medium', NAME_OPERATORS, `utm_medium of the event's page URL. ${NARROWS_EVENTS} ${NAME_MATCHING}`),
  queryAttribute('events.utm_campaign', 'UTM campaign', NAME_OPERATORS, `utm_campaign of the event's page URL. ${NARROWS_EVENTS} ${NAME_MATCHING}`),
];

/** The whole catalog, in the order GET /db-mgmt/api/filters lists it. */
export const FILTER_FIELDS: readonly FilterFieldEntry[] = [...AD_ATTRIBUTE_FIELDS, ...AD_METRIC_FIELDS, ...QUERY_FIELDS];

const FIELDS_BY_ID: ReadonlyMap<string, FilterFieldEntry> = new Map(FILTER_FIELDS.map((entry) => [entry.field, entry]));

export function findFilterField(field: string): FilterFieldEntry | undefined {
  return FIELDS_BY_ID.get(field);
}

/** The JSON type a condition's `value` must have, for an operator the field supports. */
export type FilterValueShape = 'string' | 'number' | 'string[]';

export function valueShapeFor(entry: FilterFieldEntry, op: FilterOperator): FilterValueShape {
  if (op === 'in' || op === 'not_in') return 'string[]';
  return entry.valueType;
}
