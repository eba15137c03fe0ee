import { AD_ATTRIBUTE_FIELDS } from '../ads/ad-details';
import { adMeasureFromPlatformParts, emptyParts, HourSummer, needsConversion, type MetricParts } from '../ads/ad-series';
import type { FxTable } from '../ads/fx-table';
import { findDimension, measureFamily, type DimensionFamily } from '../catalog/dimensions';
import { findMeasure, isAdMeasureId, type AdMeasureId } from '../catalog/measures';
import { evaluateFilter } from '../filters/evaluate-filter';
import type { Filter } from '../filters/filter-schema';
import { CostBook, costsOfOrder, type OrderCosts } from '../costs/order-costs';
import { countsOrder, type CountingSettings } from '../orders/counting-rules';
import type { Ad, Platform } from '../schemas/ad-import';
import { bucketIndex, bucketLabels, bucketsOf, type Bucket, type Granularity } from '../time/buckets';
import type { InstantRange } from '../time/date-range';
import { DAY_GRANULARITIES, noExchangeRate, sumAdDays } from './ad-day-cells';
import { IdentityComponents } from './identity-components';
import { filterForFamily } from './filter-namespaces';
import { measureDetail, rangeFigures, rounded, type MeasureDetail } from './measure-detail';
import { OrderMoney } from './order-money';
import { orderTimeOf, type QueryEvent, type QueryOrder, type RangeData } from './query-data';
import { parseInstant } from '../time/iso-8601';

export { DAY_GRANULARITIES } from './ad-day-cells';

/**
 * The computation of POST /db-mgmt/api/query over the facts of one or two ranges. Every measure
 * is computed from parts summed per cell (a bucket and a combination of dimension values) and per
 * whole range; ratios and distinct counts are recomputed from the parts of each, never added up.
 */
export interface QuerySpec {
  measures: readonly string[];
  dimensions: readonly string[];
  granularity: Granularity;
  timezone: string;
  currency: string;
  filters?: Filter;
  orderSettings: CountingSettings;
}

type DimensionValue = string | null;

interface Cell {
  orders: number;
  revenue: number;
  refunds: number;
  newCustomers: number;
  newRevenue: number;
  returningOrders: number;
  returningRevenue: number;
  cogs: number;
  shipping: number;
  paymentFees: number;
  handlingFees: number;
  customers: Set<string>;
  events: number;
  pageViews: number;
  addToCarts: number;
  checkouts: number;
  purchases: number;
  visitors: Set<string>;
  ads: Partial<Record<Platform, MetricParts>>;
}

const newCell = (): Cell => ({
  orders: 0,
  revenue: 0,
  refunds: 0,
  newCustomers: 0,
  newRevenue: 0,
  returningOrders: 0,
  returningRevenue: 0,
  cogs: 0,
  shipping: 0,
  paymentFees: 0,
  handlingFees: 0,
  customers: new Set(),
  events: 0,
  pageViews: 0,
  addToCarts: 0,
  checkouts: 0,
  purchases: 0,
  visitors: new Set(),
  ads: {},
});

/** Why a family's money measures cannot be stated; undefined while every amount converted. */
interface Failures {
  orders?: string;
  channel?: string;
  /** A cost amount (a SKU cost's or the settings' currency) without a rate: only the cost measures fail. */
  costs?: string;
}

interface RangeResult {
  buckets: Bucket[];
  /** Cells by bucket index and dimension values. */
  cells: Map<string, { bucket: number; values: DimensionValue[]; cell: Cell }>;
  total: Cell;
  failures: Failures;
}

const ORDER_DIMENSIONS: Record<string, (order: QueryOrder, customerType: string) => DimensionValue[]> = {
  'orders.source_name': (order) => [order.sourceName],
  'orders.payment_gateway': (order) => [order.paymentGateway],
  'orders.customer_type': (_order, type) => [type],
  'orders.currency': (order) => [order.currency],
  // An order is counted under each of its tags; one without tags under null.
  'orders.tag': (order) => (order.tags.length > 0 ? [...new Set(order.tags)] : [null]),
};

/** How an orders.* filter condition reads an order (shared with the cohort query). */
export const ORDER_FILTER_FIELDS: Record<string, (order: QueryOrder, customerType: string) => unknown> = {
  'orders.source_name': (order) => order.sourceName,
  'orders.payment_gateway': (order) => order.paymentGateway,
  // Both spellings of the type, so `new` and the upstream `new_customer` select the same orders.
  'orders.customer_type': (_order, type) => [type, `${type}_customer`],
  'orders.currency': (order) => order.currency,
  'orders.tag': (order) => order.tags,
};

const EVENT_FIELDS: Record<string, (event: QueryEvent) => DimensionValue> = {
  'events.name': (event) => event.name,
  'events.utm_source': (event) => event.utmSource,
  'events.utm_medium': (event) => event.utmMedium,
  'events.utm_campaign': (event) => event.utmCampaign,
};

const CHECKOUT_NAMES = new Set(['begin_checkout', 'initiate_checkout']);

/** Which families of facts a set of measures needs. */
export function familiesNeeded(measures: readonly string[]): Set<DimensionFamily> {
  const families = new Set<DimensionFamily>();
  for (const measure of measures) {
    const family = measureFamily(measure);
    if (family === 'core') {
      families.add('orders');
      families.add('channel');
    } else {
      families.add(family);
    }
  }
  return families;
}

/** True when a set of measures, dimensions or filters reads who is new (so customer history must be loaded). */
export function needsCustomerHistory(spec: Pick<QuerySpec, 'measures' | 'dimensions' | 'filters'>): boolean {
  const customerMeasures = ['orders.customers', 'orders.new_customers', 'orders.new_customer_revenue', 'orders.returning_customer_orders', 'orders.returning_customer_revenue', 'core.new_customer_roas', 'core.cac'];
  return (
    spec.measures.some((measure) => customerMeasures.includes(measure)) ||
    spec.dimensions.includes('orders.customer_type') ||
    JSON.stringify(spec.filters ?? {}).includes('"orders.customer_type"')
  );
}

/** Measures that read order costs (issue P9): only they make a query load the cost settings and cost each order. */
export const COST_MEASURES: ReadonlySet<string> = new Set(['orders.cogs', 'orders.shipping_costs', 'orders.payment_fees', 'orders.handling_fees', 'orders.cm1', 'orders.cm2', 'core.cm3']);

export const needsCosts = (measures: readonly string[]) => measures.some((measure) => COST_MEASURES.has(measure));

export function computeRange(spec: QuerySpec, range: InstantRange, data: RangeData, fx: FxTable, costs: CostBook = new CostBook()): RangeResult {
  const buckets = bucketsOf(range, spec.granularity, spec.timezone)!;
  const families = familiesNeeded(spec.measures);
  const result: RangeResult = { buckets, cells: new Map(), total: newCell(), failures: {} };
  const cellFor = (bucket: number, values: DimensionValue[]) => {
    const key = `${bucket}\u0000${JSON.stringify(values)}`;
    let entry = result.cells.get(key);
    if (!entry) result.cells.set(key, (entry = { bucket, values, cell: newCell() }));
    return entry.cell;
  };
  // Without dimensions an item goes to its bucket's one cell: found once per bucket, not per item.
  const bucketCells: Cell[][] = [];
  /** Every cell an item goes to: the cartesian product of its dimension values, then the range's total. */
  const cellsFor = (bucket: number, valueLists: DimensionValue[][]): readonly Cell[] => {
    if (valueLists.length === 0) return (bucketCells[bucket] ??= [cellFor(bucket, []), result.total]);
    let combos: DimensionValue[][] = [[]];
    for (const values of valueLists) combos = combos.flatMap((combo) => values.map((value) => [...combo, value]));
    return [...combos.map((combo) => cellFor(bucket, combo)), result.total];
  };

  if (families.has('orders')) addOrders(spec, range, data, fx, costs, buckets, cellsFor, result);
  if (families.has('events')) addEvents(spec, data, buckets, cellsFor, result);
  if (families.has('channel')) addAds(spec, range, data, fx, buckets, cellsFor, result);
  return result;
}

/** What an order adds to the cost parts when no measure reads them (shared: never written to). */
const NO_COSTS: Readonly<OrderCosts> = Object.freeze({ cogs: 0, shipping: 0, paymentFees: 0, handlingFees: 0 });

function addOrders(
  spec: QuerySpec,
  range: InstantRange,
  data: RangeData,
  fx: FxTable,
  book: CostBook,
  buckets: Bucket[],
  cellsFor: (bucket: number, values: DimensionValue[][]) => readonly Cell[],
  result: RangeResult,
): void {
  const filter = filterForFamily(spec.filters, 'orders');
  const costed = needsCosts(spec.measures);
  const { customers } = data;
  // Without customer measures nobody is new: no customer to look up per order.
  const typeOf = (order: QueryOrder) => (customers.firstOrderOf.size > 0 && customers.firstOrderOf.get(customers.customerOf(order)) === order.orderId ? 'new' : 'returning');
  const money = new OrderMoney(fx, spec.currency);
  /** The customer type of an order that counts and passes the filter, else undefined (a string, not an object: 100,000 orders a year). */
  const includedAs = (order: QueryOrder): 'new' | 'returning' | undefined => {
    if (!countsOrder(order, spec.orderSettings)) return undefined;
    const type = typeOf(order);
    if (filter && !evaluateFilter(filter, (field) => ORDER_FILTER_FIELDS[field]?.(order, type))) return undefined;
    return type;
  };
  // Without dimensions every order goes to its bucket's one cell: no list of values per order.
  const noValues: DimensionValue[][] = [];
  const dimensionValues = (order: QueryOrder, type: string) => (spec.dimensions.length === 0 ? noValues : spec.dimensions.map((dimension) => ORDER_DIMENSIONS[dimension]!(order, type)));
  const byOrderDate = spec.orderSettings.refundDateAttribution === 'order_date';
  // Distinct customers are a set per cell: filled only when a measure reads them.
  const countsCustomers = spec.measures.includes('orders.customers');

  for (const order of data.orders) {
    const at = orderTimeOf(order);
    if (at < range.start || at >= range.end) continue;
    const type = includedAs(order);
    if (type === undefined) continue;
    const bucket = bucketIndex(buckets, at);
    const value = money.of(order, order.value);
    const refunds = byOrderDate ? money.of(order, order.refunds.reduce((sum, refund) => sum + refund.amount, 0)) : 0;
    const isNew = type === 'new';
    const customer = countsCustomers ? customers.customerOf(order) : undefined;
    let costs = NO_COSTS;
    if (costed) {
      const outcome = costsOfOrder(order, book, fx, spec.currency);
      if ('failure' in outcome) result.failures.costs ??= outcome.failure;
      else costs = outcome.costs;
    }
    for (const cell of cellsFor(bucket, dimensionValues(order, type))) {
      cell.orders += 1;
      cell.cogs += costs.cogs;
      cell.shipping += costs.shipping;
      cell.paymentFees += costs.paymentFees;
      cell.handlingFees += costs.handlingFees;
      cell.revenue += value;
      cell.refunds += refunds;
      if (customer !== undefined) cell.customers.add(customer);
      if (isNew) {
        cell.newCustomers += 1;
        cell.newRevenue += value;
      } else {
        cell.returningOrders += 1;
        cell.returningRevenue += value;
      }
    }
  }
  if (!byOrderDate) {
    const seen = new Set<string>();
    for (const order of data.refundedOrders) {
      if (seen.has(order.orderId)) continue;
      seen.add(order.orderId);
      const type = includedAs(order);
      if (type === undefined) continue;
      for (const refund of order.refunds) {
        const at = parseInstant(refund.processedAt);
        if (at < range.start || at >= range.end) continue;
        const amount = money.of(order, refund.amount);
        for (const cell of cellsFor(bucketIndex(buckets, at), dimensionValues(order, type))) cell.refunds += amount;
      }
    }
  }
  result.failures.orders ??= money.failure;
}

function addEvents(spec: QuerySpec, data: RangeData, buckets: Bucket[], cellsFor: (bucket: number, values: DimensionValue[][]) => readonly Cell[], result: RangeResult): void {
  const filter = filterForFamily(spec.filters, 'events');
  // People are linked over every event of the range, whatever the filter keeps, so a bucket's
  // visitors and the range's are counted in the same people.
  const people = new IdentityComponents();
  for (const event of data.events) people.link(event.identities);
  for (const event of data.events) {
    if (filter && !evaluateFilter(filter, (field) => EVENT_FIELDS[field]?.(event))) continue;
    const bucket = bucketIndex(buckets, event.at);
    if (bucket < 0) continue;
    const person = event.identities.length > 0 ? people.root(event.identities[0]!) : undefined;
    const count = event.count ?? 1;
    for (const cell of cellsFor(bucket, spec.dimensions.map((dimension) => [EVENT_FIELDS[dimension]!(event)]))) {
      cell.events += count;
      if (event.name === 'page_view') cell.pageViews += count;
      else if (event.name === 'add_to_cart') cell.addToCarts += count;
      else if (CHECKOUT_NAMES.has(event.name)) cell.checkouts += count;
      else if (event.name === 'purchase') cell.purchases += count;
      if (person !== undefined) cell.visitors.add(person);
    }
  }
}

/**
 * Channel metrics of the ads the query's channel filter keeps. Over buckets of whole local days
 * they come from each ad's day cells (`sumAdDays`, shared with the attribution spend join), summed
 * by DuckDB from the stored hours (or here, from a hand-built source's hours). Finer buckets sum the hours, each landing in the bucket holding its start. Money converts as
 * the ad listing does: each hour at its UTC date's rate.
 */
function addAds(
  spec: QuerySpec,
  range: InstantRange,
  data: RangeData,
  fx: FxTable,
  buckets: Bucket[],
  cellsFor: (bucket: number, values: DimensionValue[][]) => readonly Cell[],
  result: RangeResult,
): void {
  const filter = filterForFamily(spec.filters, 'channel');
  const ads = filter ? data.ads.filter(({ ad }) => evaluateFilter(filter, (field) => AD_ATTRIBUTE_FIELDS[field]?.(ad))) : data.ads;
  const valuesOf = (ad: Ad) => spec.dimensions.map((dimension) => [AD_ATTRIBUTE_FIELDS[dimension]!(ad)]);
  if (DAY_GRANULARITIES.has(spec.granularity)) {
    const unconvertible = sumAdDays({
      ads,
      range,
      timeZone: spec.timezone,
      buckets,
      currency: spec.currency,
      fx,
      partsOf: (ad) => {
        const values = valuesOf(ad);
        return (bucket) => cellsFor(bucket, values).map((cell) => (cell.ads[ad.platform] ??= emptyParts()));
      },
    });
    if (unconvertible) result.failures.channel ??= noExchangeRate(unconvertible, spec.currency);
    return;
  }
  for (const { ad, hours } of ads) {
    const summer = new HourSummer((date) => fx.convert(1, ad.currency, spec.currency, date));
    const values = valuesOf(ad);
    for (const hour of hours) {
      if (hour.hour < range.start || hour.hour >= range.end) continue;
      for (const cell of cellsFor(bucketIndex(buckets, hour.hour), values)) {
        const parts = (cell.ads[ad.platform] ??= emptyParts());
        summer.add(parts, hour);
      }
    }
    if (!summer.convertible) result.failures.channel ??= noExchangeRate(ad, spec.currency);
  }
}

const ratio = (numerator: number, denominator: number, scale = 1) => (denominator === 0 ? null : (numerator / denominator) * scale);

const spendOf = (cell: Cell) => adMeasureFromPlatformParts('channel.spend', cell.ads) ?? 0;

const cm1Of = (cell: Cell) => cell.revenue - cell.refunds - cell.cogs;
const cm2Of = (cell: Cell) => cm1Of(cell) - cell.shipping - cell.paymentFees - cell.handlingFees;

/** One measure of a cell, unrounded. */
function measureOf(measure: string, cell: Cell): number | null {
  if (isAdMeasureId(measure)) return adMeasureFromPlatformParts(measure, cell.ads);
  switch (measure) {
    case 'orders.orders':
      return cell.orders;
    case 'orders.total_revenue':
      return cell.revenue;
    case 'orders.refunds':
      return cell.refunds;
    case 'orders.net_revenue':
      return cell.revenue - cell.refunds;
    case 'orders.average_order_value':
      return ratio(cell.revenue, cell.orders);
    case 'orders.customers':
      return cell.customers.size;
    case 'orders.new_customers':
      return cell.newCustomers;
    case 'orders.new_customer_revenue':
      return cell.newRevenue;
    case 'orders.returning_customer_orders':
      return cell.returningOrders;
    case 'orders.returning_customer_revenue':
      return cell.returningRevenue;
    case 'orders.cogs':
      return cell.cogs;
    case 'orders.shipping_costs':
      return cell.shipping;
    case 'orders.payment_fees':
      return cell.paymentFees;
    case 'orders.handling_fees':
      return cell.handlingFees;
    case 'orders.cm1':
      return cm1Of(cell);
    case 'orders.cm2':
      return cm2Of(cell);
    case 'core.cm3':
      return cm2Of(cell) - spendOf(cell);
    case 'events.count':
      return cell.events;
    case 'events.page_views':
      return cell.pageViews;
    case 'events.add_to_carts':
      return cell.addToCarts;
    case 'events.checkouts':
      return cell.checkouts;
    case 'events.purchases':
      return cell.purchases;
    case 'events.visitors':
      return cell.visitors.size;
    case 'events.conversion_rate':
      return ratio(cell.purchases, cell.visitors.size, 100);
    case 'core.mer':
      return ratio(cell.revenue - cell.refunds, spendOf(cell));
    case 'core.roas':
      return ratio(cell.revenue, spendOf(cell));
    case 'core.new_customer_roas':
      return ratio(cell.newRevenue, spendOf(cell));
    case 'core.cac':
      return ratio(spendOf(cell), cell.newCustomers);
    default:
      throw new Error(`No computation for measure ${measure}`);
  }
}

const ORDER_MONEY_MEASURES = new Set([
  'orders.total_revenue',
  'orders.refunds',
  'orders.net_revenue',
  'orders.average_order_value',
  'orders.new_customer_revenue',
  'orders.returning_customer_revenue',
]);

/** Why a measure cannot be computed from these ranges, or undefined when it can. */
function failureOf(measure: string, failures: Failures): string | undefined {
  const family = measureFamily(measure);
  if (COST_MEASURES.has(measure)) return failures.orders ?? failures.costs ?? (family === 'core' ? failures.channel : undefined);
  if (family === 'orders') return ORDER_MONEY_MEASURES.has(measure) ? failures.orders : undefined;
  if (family === 'core') return failures.orders ?? failures.channel;
  if (family === 'channel') return needsConversion(measure as AdMeasureId) ? failures.channel : undefined;
  return undefined;
}


export interface QueryPoint {
  dt: string;
  start: string;
  end: string;
  [key: string]: string | number | null;
}

export type { MeasureDetail };

function pointsOf(spec: QuerySpec, result: RangeResult, measures: readonly string[]): QueryPoint[] {
  const entries = [...result.cells.values()].sort((a, b) => a.bucket - b.bucket || compareValues(a.values, b.values));
  return entries.map(({ bucket, values, cell }) => {
    const point: QueryPoint = { dt: result.buckets[bucket]!.dt, ...bucketLabels(result.buckets[bucket]!, spec.timezone) };
    spec.dimensions.forEach((dimension, i) => (point[dimension] = values[i] ?? null));
    for (const measure of measures) point[measure] = rounded(measureOf(measure, cell));
    return point;
  });
}

/** Null first, then by code point. */
function compareValues(a: readonly DimensionValue[], b: readonly DimensionValue[]): number {
  for (let i = 0; i < a.length; i++) {
    const [x, y] = [a[i] ?? null, b[i] ?? null];
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * The response of POST /db-mgmt/api/query for computed ranges. `primarySum` is the measure over
 * the whole range (recomputed for ratios and distinct counts); `primaryAvg` is that value ÷ the
 * number of buckets for other measures, and the value itself for ratios (`calculatedAverage`).
 */
export function shapeResult(
  spec: QuerySpec,
  echo: { dateRange: unknown; compareDateRange: unknown },
  primary: RangeResult,
  compare: RangeResult | undefined,
) {
  const failures: Failures = {
    orders: primary.failures.orders ?? compare?.failures.orders,
    channel: primary.failures.channel ?? compare?.failures.channel,
    costs: primary.failures.costs ?? compare?.failures.costs,
  };
  const computable = spec.measures.filter((measure) => failureOf(measure, failures) === undefined);
  const measureDetails: MeasureDetail[] = spec.measures.map((measure) => {
    const entry = findMeasure(measure)!;
    const totals = (result: RangeResult) => rangeFigures(entry, measureOf(measure, result.total), result.buckets.length);
    return measureDetail(measure, entry, failureOf(measure, failures), totals(primary), compare && totals(compare));
  });
  return {
    results: [
      {
        granularity: spec.granularity,
        dimensions: [...spec.dimensions],
        dateRange: echo.dateRange,
        compareDateRange: echo.compareDateRange ?? null,
        timezone: spec.timezone,
        currency: spec.currency,
        measureDetails,
        data: { primary: pointsOf(spec, primary, computable), compare: compare ? pointsOf(spec, compare, computable) : [] },
      },
    ],
  };
}

