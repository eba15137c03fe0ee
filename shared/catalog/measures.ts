/**
 * The measures catalog (GET /db-mgmt/api/measures): every measure id the service knows, with what
 * a client needs to display it. It is the one source of truth: the filter-field catalog derives
 * its metric fields from it, and the ad listing computes the ad-platform measures from
 * `AD_MEASURE_DEFINITIONS` below. A later namespace (`orders.*`, `core.*`) adds entries to
 * `MEASURES`; consumers that look measures up by id need no change.
 */

export const MEASURE_FORMATS = ['number', 'currency', 'percent', 'ratio'] as const;
export type MeasureFormat = (typeof MEASURE_FORMATS)[number];

/**
 * Where a measure id may be used. A name per consumer rather than per endpoint family, so that a
 * measure can be offered to dashboards before, or without, a query endpoint that computes it.
 */
export const MEASURE_CONTEXTS = ['query', 'query_ads', 'query_attribution', 'dashboards', 'query_cohort'] as const;
export type MeasureContext = (typeof MEASURE_CONTEXTS)[number];

export interface MeasureCatalogEntry {
  /** `<namespace>.<name>` */
  id: string;
  namespace: string;
  title: string;
  /** What a dashboard widget shows as its title. */
  shortTitle: string;
  description: string;
  format: MeasureFormat;
  /** True when a period's value is not the sum of its days (ratios): totals are recomputed, not added. */
  isAverage: boolean;
  /** True when the value is in percent points (2.5 means 2.5 %). */
  isPercentage: boolean;
  /** Which way of a change is good news, for colouring comparisons. */
  preferredTrendDirection: 'up' | 'down';
  contexts: readonly MeasureContext[];
}

export const AD_PLATFORMS = ['meta', 'google', 'tiktok'] as const;
export type AdPlatform = (typeof AD_PLATFORMS)[number];

const PLATFORM_NAMES: Record<AdPlatform, string> = { meta: 'Meta', google: 'Google Ads', tiktok: 'TikTok' };

/** The stored hourly numbers of an ad that every ad-platform measure is computed from. */
export const AD_METRIC_PARTS = ['spend', 'impressions', 'clicks', 'conversions', 'conversionValue'] as const;
export type AdMetricPart = (typeof AD_METRIC_PARTS)[number];

/** Parts held in the ad account's own currency, which must be converted to the requested one. */
export const MONEY_PARTS: ReadonlySet<AdMetricPart> = new Set<AdMetricPart>(['spend', 'conversionValue']);

/**
 * How a measure is computed from the parts over any period (a day, a whole date range): a sum
 * adds a part up; a ratio is `sum(numerator) / sum(denominator) × scale` over that period, never
 * an average of daily ratios. A ratio whose denominator sums to 0 has no value (null).
 */
export type AdMeasureComputation =
  | { kind: 'sum'; part: AdMetricPart }
  | { kind: 'ratio'; numerator: AdMetricPart; denominator: AdMetricPart; scale: number };

export interface AdMeasureDefinition {
  /** The one platform whose ads count; `null` counts every platform. */
  platform: AdPlatform | null;
  compute: AdMeasureComputation;
}

const CHANNEL_METRICS = ['spend', 'impressions', 'clicks', 'ctr', 'cpc', 'cpm', 'conversions', 'conversion_value', 'roas'] as const;
/** Platform namespaces carry the delivery metrics only: conversions are attributed across platforms. */
const PLATFORM_METRICS = ['spend', 'impressions', 'clicks', 'ctr', 'cpc', 'cpm'] as const;
type ChannelMetric = (typeof CHANNEL_METRICS)[number];
type PlatformMetric = (typeof PLATFORM_METRICS)[number];

export type AdMeasureId = `channel.${ChannelMetric}` | `${AdPlatform}.${PlatformMetric}`;

interface AdMetricSpec {
  title: string;
  shortTitle: string;
  /** Completed with the scope, e.g. "across all connected ad platforms". */
  describe: (scope: string) => string;
  format: MeasureFormat;
  isPercentage: boolean;
  /*
   * Volume and revenue go `up`. Cost goes `down`, and that includes spend itself: more spend is
   * not good news on its own, and whether it paid off is read from roas and conversions.
   */
  preferredTrendDirection: 'up' | 'down';
  compute: AdMeasureComputation;
}

const MONEY_NOTE = 'Converted to the requested currency at the rate of each hour’s date.';

const AD_METRIC_SPECS: Record<ChannelMetric, AdMetricSpec> = {
  spend: {
    title: 'Ad spend',
    shortTitle: 'Spend',
    describe: (scope) => `Amount spent on ads ${scope}. ${MONEY_NOTE}`,
    format: 'currency',
    isPercentage: false,
    preferredTrendDirection: 'down',
    compute: { kind: 'sum', part: 'spend' },
  },
  impressions: {
    title: 'Impressions',
    shortTitle: 'Impressions',
    describe: (scope) => `Times ads were shown ${scope}.`,
    format: 'number',
    isPercentage: false,
    preferredTrendDirection: 'up',
    compute: { kind: 'sum', part: 'impressions' },
  },
  clicks: {
    title: 'Clicks',
    shortTitle: 'Clicks',
    describe: (scope) => `Clicks on ads ${scope}.`,
    format: 'number',
    isPercentage: false,
    preferredTrendDirection: 'up',
    compute: { kind: 'sum', part: 'clicks' },
  },
  ctr: {
    title: 'Click-through rate',
    shortTitle: 'CTR',
    describe: (scope) => `Clicks ÷ impressions × 100 ${scope}, in percent (2.5 means 2.5 %). No value when there were no impressions.`,
    format: 'percent',
    isPercentage: true,
    preferredTrendDirection: 'up',
    compute: { kind: 'ratio', numerator: 'clicks', denominator: 'impressions', scale: 100 },
  },
  cpc: {
    title: 'Cost per click',
    shortTitle: 'CPC',
    describe: (scope) => `Spend ÷ clicks ${scope}. ${MONEY_NOTE} No value when there were no clicks.`,
    format: 'currency',
    isPercentage: false,
    preferredTrendDirection: 'down',
    compute: { kind: 'ratio', numerator: 'spend', denominator: 'clicks', scale: 1 },
  },
  cpm: {
    title: 'Cost per thousand impressions',
    shortTitle: 'CPM',
    describe: (scope) => `Spend ÷ impressions × 1000 ${scope}. ${MONEY_NOTE} No value when there were no impressions.`,
    format: 'currency',
    isPercentage: false,
    preferredTrendDirection: 'down',
    compute: { kind: 'ratio', numerator: 'spend', denominator: 'impressions', scale: 1000 },
  },
  conversions: {
    title: 'Conversions',
    shortTitle: 'Conversions',
    describe: (scope) => `Conversions the ad platforms reported ${scope}.`,
    format: 'number',
    isPercentage: false,
    preferredTrendDirection: 'up',
    compute: { kind: 'sum', part: 'conversions' },
  },
  conversion_value: {
    title: 'Conversion value',
    shortTitle: 'Conv. value',
    describe: (scope) => `Value of the conversions the ad platforms reported ${scope}. ${MONEY_NOTE}`,
    format: 'currency',
    isPercentage: false,
    preferredTrendDirection: 'up',
    compute: { kind: 'sum', part: 'conversionValue' },
  },
  roas: {
    title: 'Return on ad spend',
    shortTitle: 'ROAS',
    describe: (scope) => `Conversion value ÷ spend ${scope} (3 means 3 of revenue per 1 spent). No value when nothing was spent.`,
    format: 'ratio',
    isPercentage: false,
    preferredTrendDirection: 'up',
    compute: { kind: 'ratio', numerator: 'conversionValue', denominator: 'spend', scale: 1 },
  },
};

interface AdMeasure {
  entry: MeasureCatalogEntry & { id: AdMeasureId };
  definition: AdMeasureDefinition;
}

function adMeasure(namespace: 'channel' | AdPlatform, metric: ChannelMetric): AdMeasure {
  const spec = AD_METRIC_SPECS[metric];
  const platform = namespace === 'channel' ? null : namespace;
  const scope = platform ? `on ${PLATFORM_NAMES[platform]}` : 'across all connected ad platforms';
  return {
    entry: {
      id: `${namespace}.${metric}` as AdMeasureId,
      namespace,
      title: platform ? `${PLATFORM_NAMES[platform]} ${spec.title.toLowerCase().replace(/^ad /, '')}` : spec.title,
      shortTitle: platform ? `${PLATFORM_NAMES[platform]} ${spec.shortTitle}` : spec.shortTitle,
      description: spec.describe(scope),
      format: spec.format,
      isAverage: spec.compute.kind === 'ratio',
      isPercentage: spec.isPercentage,
      preferredTrendDirection: spec.preferredTrendDirection,
      // Spend also sits next to attributed revenue, joined by campaign, ad set, ad or platform.
      contexts: namespace === 'channel' && metric === 'spend' ? ['query', 'query_ads', 'query_attribution', 'dashboards'] : ['query', 'query_ads', 'dashboards'],
    },
    definition: { platform, compute: spec.compute },
  };
}

const AD_MEASURES: readonly AdMeasure[] = [
  ...CHANNEL_METRICS.map((metric) => adMeasure('channel', metric)),
  ...AD_PLATFORMS.flatMap((platform) => PLATFORM_METRICS.map((metric) => adMeasure(platform, metric))),
];

/** Every ad-platform measure id, in catalog order: `channel.*` first, then each platform's. */
export const AD_MEASURE_IDS: readonly AdMeasureId[] = AD_MEASURES.map(({ entry }) => entry.id);

/** How the ad listing computes each ad-platform measure. */
export const AD_MEASURE_DEFINITIONS = Object.fromEntries(
  AD_MEASURES.map(({ entry, definition }) => [entry.id, definition]),
) as Readonly<Record<AdMeasureId, AdMeasureDefinition>>;

const AD_MEASURE_ID_SET: ReadonlySet<string> = new Set(AD_MEASURE_IDS);

export function isAdMeasureId(id: string): id is AdMeasureId {
  return AD_MEASURE_ID_SET.has(id);
}

/** Measures of POST /db-mgmt/api/query that are not ad-platform measures: orders, events and blended figures. */
export const QUERY_MEASURE_NAMESPACES = ['orders', 'events', 'core'] as const;

type QueryMeasureSpec = Omit<MeasureCatalogEntry, 'namespace' | 'contexts'>;

const COUNTED = 'Counted orders are those the request\u2019s orderSettings count (status and exclusion filters).';
const ORDER_MONEY = 'Converted to the requested currency at the rate of each order\u2019s UTC date.';
const NEW_CUSTOMER = 'A customer is new in the bucket holding their first counted order over all stored history.';

const COSTED = 'Costs of counted orders, by order date, from the order\u2019s items and the cost settings (README, Costs); refunds never reverse them.';

/** Contribution margins and their cost parts (issue P9); formulas in shared/costs/order-costs.ts. */
const PROFIT_MEASURES: readonly QueryMeasureSpec[] = [
  { id: 'orders.cogs', title: 'Cost of goods sold', shortTitle: 'COGS', description: `\u03a3 quantity \u00d7 unit cost over the items of counted orders; the unit cost is the item\u2019s own cost, else its SKU\u2019s cost in effect on the order\u2019s UTC date, else defaultCogsPercent of its price. ${COSTED} ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'down' },
  { id: 'orders.shipping_costs', title: 'Shipping costs', shortTitle: 'Shipping', description: `The order\u2019s shippingCost, else defaultShippingCostPerOrder, per counted order. ${COSTED} ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'down' },
  { id: 'orders.payment_fees', title: 'Payment fees', shortTitle: 'Payment fees', description: `percent of the order\u2019s value plus fixed, of the gatewayFees entry matching the order\u2019s paymentGateway (ignoring case); 0 without a match. ${COSTED} ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'down' },
  { id: 'orders.handling_fees', title: 'Handling fees', shortTitle: 'Handling', description: `handlingFeePerItem \u00d7 item lines of each counted order (an order without items counts one). ${COSTED} ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'down' },
  { id: 'orders.cm1', title: 'Contribution margin 1', shortTitle: 'CM1', description: `Net revenue \u2212 COGS, per bucket. ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'orders.cm2', title: 'Contribution margin 2', shortTitle: 'CM2', description: `CM1 \u2212 shipping costs \u2212 payment fees \u2212 handling fees, per bucket. ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
];

const ORDER_MEASURES: readonly QueryMeasureSpec[] = [
  { id: 'orders.orders', title: 'Orders', shortTitle: 'Orders', description: `Number of counted orders, by order date. ${COUNTED}`, format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'orders.total_revenue', title: 'Total revenue', shortTitle: 'Revenue', description: `Sum of the values of counted orders, by order date. ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'orders.refunds', title: 'Refunds', shortTitle: 'Refunds', description: `Refunded amounts of counted orders: by the refund\u2019s processed date with refundDateAttribution refund_date, by the order\u2019s date with order_date. ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'down' },
  { id: 'orders.net_revenue', title: 'Net revenue', shortTitle: 'Net revenue', description: `Total revenue minus refunds, per bucket. ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'orders.average_order_value', title: 'Average order value', shortTitle: 'AOV', description: 'Total revenue \u00f7 orders, recomputed per bucket and per range. No value without orders.', format: 'currency', isAverage: true, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'orders.customers', title: 'Customers', shortTitle: 'Customers', description: 'Distinct customers with a counted order: orders sharing a user id, email hash or phone hash (transitively) are one customer; an order without identity is its own. Recomputed over each bucket and range, never summed.', format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'orders.new_customers', title: 'New customers', shortTitle: 'New customers', description: `Customers whose first counted order falls in the bucket. ${NEW_CUSTOMER}`, format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'orders.new_customer_revenue', title: 'New-customer revenue', shortTitle: 'NC revenue', description: `Values of customers\u2019 first counted orders. ${NEW_CUSTOMER} ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'orders.returning_customer_orders', title: 'Returning-customer orders', shortTitle: 'Returning orders', description: 'Counted orders that are not their customer\u2019s first counted order.', format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'orders.returning_customer_revenue', title: 'Returning-customer revenue', shortTitle: 'Returning revenue', description: `Values of counted orders that are not their customer\u2019s first counted order. ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  ...PROFIT_MEASURES,
];

const PERSON = 'A person is the set of identifiers (user ids, email hash, phone hash, click.fbp) seen together on one event, transitively, within the range; events with none are not counted.';

const EVENT_MEASURES: readonly QueryMeasureSpec[] = [
  { id: 'events.count', title: 'Events', shortTitle: 'Events', description: 'Number of tracking events of every name, by event time.', format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'events.page_views', title: 'Page views', shortTitle: 'Page views', description: 'Number of page_view events.', format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'events.add_to_carts', title: 'Add to carts', shortTitle: 'Add to carts', description: 'Number of add_to_cart events.', format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'events.checkouts', title: 'Checkouts', shortTitle: 'Checkouts', description: 'Number of begin_checkout and initiate_checkout events.', format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'events.purchases', title: 'Purchase events', shortTitle: 'Purchases', description: 'Number of purchase events.', format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'events.visitors', title: 'Visitors', shortTitle: 'Visitors', description: `Distinct people with an event. ${PERSON} Recomputed over each bucket and range, never summed.`, format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'events.conversion_rate', title: 'Conversion rate', shortTitle: 'CVR', description: 'Purchase events \u00f7 visitors \u00d7 100, in percent. No value without visitors.', format: 'percent', isAverage: true, isPercentage: true, preferredTrendDirection: 'up' },
];

const BLENDED = 'Orders narrowed by orders.* filters, spend by channel.* filters; no value when the denominator is 0.';

const CORE_MEASURES: readonly QueryMeasureSpec[] = [
  { id: 'core.mer', title: 'Marketing efficiency ratio', shortTitle: 'MER', description: `Net revenue \u00f7 ad spend (channel.spend). ${BLENDED}`, format: 'ratio', isAverage: true, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'core.roas', title: 'Blended ROAS', shortTitle: 'Blended ROAS', description: `Total revenue \u00f7 ad spend (channel.spend). ${BLENDED}`, format: 'ratio', isAverage: true, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'core.new_customer_roas', title: 'New-customer ROAS', shortTitle: 'NC ROAS', description: `New-customer revenue \u00f7 ad spend (channel.spend). ${BLENDED}`, format: 'ratio', isAverage: true, isPercentage: false, preferredTrendDirection: 'up' },
  { id: 'core.cac', title: 'Customer acquisition cost', shortTitle: 'CAC', description: `Ad spend (channel.spend) \u00f7 new customers. ${BLENDED}`, format: 'currency', isAverage: true, isPercentage: false, preferredTrendDirection: 'down' },
  { id: 'core.cm3', title: 'Contribution margin 3', shortTitle: 'CM3', description: 'orders.cm2 \u2212 ad spend (channel.spend), per bucket. Orders narrowed by orders.* filters, spend by channel.* filters.', format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
];

const QUERY_MEASURES: readonly MeasureCatalogEntry[] = [...ORDER_MEASURES, ...EVENT_MEASURES, ...CORE_MEASURES].map((spec) => ({
  ...spec,
  namespace: spec.id.split('.')[0]!,
  contexts: ['query', 'dashboards'] as const,
}));

const COHORT = 'Cohorts are the customers whose first counted order (over all stored history) falls in dateRange, by granularity bucket; period k is the k-th bucket after the cohort\u2019s own (k = 0).';
const PER_CUSTOMER = 'Cumulative through period k, \u00f7 the cohort\u2019s size.';

/** Measures of POST /db-mgmt/api/query-cohort-analysis (issue P9), per cohort and period. */
export const COHORT_MEASURE_IDS = [
  'orders.customers_cohort',
  'orders.ltv_cohort_gross_revenue',
  'orders.ltv_cohort_net_revenue',
  'orders.avg_order_value_cohort',
  'orders.cohort_retention_percent',
  'orders.cohort_cm1',
  'orders.cohort_cm2',
] as const;
export type CohortMeasureId = (typeof COHORT_MEASURE_IDS)[number];

const COHORT_MEASURES: readonly MeasureCatalogEntry[] = (
  [
    { id: 'orders.customers_cohort', title: 'Cohort customers', shortTitle: 'Customers', description: `The cohort\u2019s size: customers acquired in its bucket. ${COHORT}`, format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
    { id: 'orders.ltv_cohort_gross_revenue', title: 'Cohort LTV (gross revenue)', shortTitle: 'LTV gross', description: `Values of the cohort\u2019s counted orders. ${PER_CUSTOMER} ${COHORT} ${ORDER_MONEY}`, format: 'currency', isAverage: true, isPercentage: false, preferredTrendDirection: 'up' },
    { id: 'orders.ltv_cohort_net_revenue', title: 'Cohort LTV (net revenue)', shortTitle: 'LTV net', description: `Values minus refunds (dated by refundDateAttribution) of the cohort\u2019s counted orders. ${PER_CUSTOMER} ${COHORT} ${ORDER_MONEY}`, format: 'currency', isAverage: true, isPercentage: false, preferredTrendDirection: 'up' },
    { id: 'orders.avg_order_value_cohort', title: 'Cohort average order value', shortTitle: 'AOV', description: `The cohort\u2019s revenue \u00f7 its orders within period k (not cumulative); no value without orders. ${COHORT} ${ORDER_MONEY}`, format: 'currency', isAverage: true, isPercentage: false, preferredTrendDirection: 'up' },
    { id: 'orders.cohort_retention_percent', title: 'Cohort retention', shortTitle: 'Retention', description: `Share of the cohort with a counted order in period k, in percent (period 0 is 100). ${COHORT}`, format: 'percent', isAverage: true, isPercentage: true, preferredTrendDirection: 'up' },
    { id: 'orders.cohort_cm1', title: 'Cohort CM1', shortTitle: 'CM1', description: `Net revenue \u2212 COGS of the cohort\u2019s counted orders (orders.cm1). ${PER_CUSTOMER} ${COHORT} ${ORDER_MONEY}`, format: 'currency', isAverage: true, isPercentage: false, preferredTrendDirection: 'up' },
    { id: 'orders.cohort_cm2', title: 'Cohort CM2', shortTitle: 'CM2', description: `CM1 \u2212 shipping costs \u2212 payment fees \u2212 handling fees of the cohort\u2019s counted orders (orders.cm2). ${PER_CUSTOMER} ${COHORT} ${ORDER_MONEY}`, format: 'currency', isAverage: true, isPercentage: false, preferredTrendDirection: 'up' },
  ] satisfies ReadonlyArray<QueryMeasureSpec & { id: CohortMeasureId }>
).map((spec) => ({ ...spec, namespace: 'orders', contexts: ['query_cohort'] as const }));

const CREDITED = 'The sum of the shares of counted orders the attribution model credits to the dimension value (every order is credited in full across the values, to null when no touchpoint of its person falls in the window; any_click credits each value touched in full, so its totals may exceed the orders).';
const JOINED_SPEND = 'Spend (channel.spend) is joined for dimensions source (the three ad platforms), channel.campaign_id, channel.adset_id and channel.ad_id only.';

const ATTRIBUTION_MEASURES: readonly MeasureCatalogEntry[] = (
  [
    { id: 'attribution.orders', title: 'Attributed orders', shortTitle: 'Attr. orders', description: `Credited orders (fractions under linear, time_decay and position_based). ${CREDITED}`, format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
    { id: 'attribution.revenue', title: 'Attributed revenue', shortTitle: 'Attr. revenue', description: `Credited share of each order\u2019s value. ${CREDITED} ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
    { id: 'attribution.net_revenue', title: 'Attributed net revenue', shortTitle: 'Attr. net revenue', description: `Credited share of each order\u2019s value minus all its refunds (refunds count against their order, whatever refundDateAttribution says). ${CREDITED} ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
    { id: 'attribution.new_customer_orders', title: 'Attributed new-customer orders', shortTitle: 'Attr. NC orders', description: `Credited first counted orders of their customer (over all stored history). ${CREDITED}`, format: 'number', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
    { id: 'attribution.new_customer_revenue', title: 'Attributed new-customer revenue', shortTitle: 'Attr. NC revenue', description: `Credited share of the values of first counted orders. ${CREDITED} ${ORDER_MONEY}`, format: 'currency', isAverage: false, isPercentage: false, preferredTrendDirection: 'up' },
    { id: 'attribution.roas', title: 'Attributed ROAS', shortTitle: 'Attr. ROAS', description: `Attributed revenue \u00f7 spend of the same dimension value and bucket. ${JOINED_SPEND} No value when nothing was spent.`, format: 'ratio', isAverage: true, isPercentage: false, preferredTrendDirection: 'up' },
    { id: 'attribution.cpa', title: 'Attributed cost per acquisition', shortTitle: 'Attr. CPA', description: `Spend \u00f7 attributed orders of the same dimension value and bucket. ${JOINED_SPEND} No value without attributed orders.`, format: 'currency', isAverage: true, isPercentage: false, preferredTrendDirection: 'down' },
  ] satisfies QueryMeasureSpec[]
).map((spec) => ({ ...spec, namespace: 'attribution', contexts: ['query_attribution', 'dashboards'] as const }));

/** The whole catalog, in the order GET /db-mgmt/api/measures lists it. */
export const MEASURES: readonly MeasureCatalogEntry[] = [...QUERY_MEASURES, ...ATTRIBUTION_MEASURES, ...AD_MEASURES.map(({ entry }) => entry), ...COHORT_MEASURES];

const MEASURES_BY_ID: ReadonlyMap<string, MeasureCatalogEntry> = new Map(MEASURES.map((measure) => [measure.id, measure]));

export function findMeasure(id: string): MeasureCatalogEntry | undefined {
  return MEASURES_BY_ID.get(id);
}
