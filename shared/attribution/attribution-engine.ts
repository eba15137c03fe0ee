import { AD_ATTRIBUTE_FIELDS } from '../ads/ad-details';
import { adMeasureFromPlatformParts, emptyParts, type MetricParts } from '../ads/ad-series';
import type { FxTable } from '../ads/fx-table';
import { findMeasure } from '../catalog/measures';
import { evaluateFilter } from '../filters/evaluate-filter';
import type { Filter } from '../filters/filter-schema';
import { noExchangeRate, sumAdDays, type AdDayInput } from '../analytics/ad-day-cells';
import { filterForFamily } from '../analytics/filter-namespaces';
import { orderTimeOf, type QueryOrder } from '../analytics/query-data';
import { OrderMoney } from '../analytics/order-money';
import { measureDetail, rangeFigures, rounded, type MeasureDetail } from '../analytics/measure-detail';
import { ORDER_FILTER_FIELDS } from '../analytics/query-engine';
import { countsOrder, type CountingSettings, type MetCustomers } from '../orders/counting-rules';
import type { Ad, Platform } from '../schemas/ad-import';
import { bucketIndex, bucketLabels, bucketsOf, type Bucket } from '../time/buckets';
import type { InstantRange } from '../time/date-range';
import { ATTRIBUTION_DIMENSIONS, type AttributionDimension, type Touchpoint } from './touchpoints';

/**
 * The computation of POST /db-mgmt/api/query-attribution over hand-built or stored facts (issue
 * P8 items 4-6). Pure: the service reads the facts, this credits them.
 *
 * Each counted order of the range is credited to the dimension values of the touchpoints of its
 * person in the window (order time − window, order time], by the model's weights; an order with no
 * touchpoint there is credited to `null`. Every measure is a sum of credited shares, per bucket of
 * the order's date and per dimension value; ROAS and CPA are recomputed from summed parts.
 */
export const ATTRIBUTION_MODELS = ['first_click', 'last_click', 'any_click', 'linear', 'time_decay', 'position_based'] as const;
export type AttributionModel = (typeof ATTRIBUTION_MODELS)[number];

export const ATTRIBUTION_WINDOWS = [1, 7, 14, 28, 30, 60, 90] as const;
export const ATTRIBUTION_GRANULARITIES = ['none', 'day', 'week', 'month'] as const;

const DAY_MS = 86_400_000;
/** time_decay halves a touchpoint's weight for every 7 days between it and the order. */
export const TIME_DECAY_HALF_LIFE_MS = 7 * DAY_MS;

export type DimensionValue = string | null;

/** A model's shares of one order: per dimension value, the fraction of the order credited to it. */
export function creditsOf(model: AttributionModel, journey: readonly Touchpoint[], orderAt: number, dimension: AttributionDimension): Map<DimensionValue, number> {
  const credits = new Map<DimensionValue, number>();
  const valueOf = ATTRIBUTION_DIMENSIONS[dimension];
  const n = journey.length;
  if (n === 0) {
    addShare(credits, null, 1);
    return credits;
  }
  switch (model) {
    case 'first_click':
      addShare(credits, valueOf(journey[0]!), 1);
      break;
    case 'last_click':
      addShare(credits, valueOf(journey[n - 1]!), 1);
      break;
    case 'any_click':
      for (const touchpoint of journey) credits.set(valueOf(touchpoint), 1);
      break;
    case 'linear':
      for (const touchpoint of journey) addShare(credits, valueOf(touchpoint), 1 / n);
      break;
    case 'time_decay': {
      const weights = journey.map((touchpoint) => 2 ** (-(orderAt - touchpoint.at) / TIME_DECAY_HALF_LIFE_MS));
      const total = weights.reduce((sum, weight) => sum + weight, 0);
      journey.forEach((touchpoint, i) => addShare(credits, valueOf(touchpoint), weights[i]! / total));
      break;
    }
    case 'position_based':
      if (n === 1) addShare(credits, valueOf(journey[0]!), 1);
      else if (n === 2) journey.forEach((touchpoint) => addShare(credits, valueOf(touchpoint), 0.5));
      else {
        addShare(credits, valueOf(journey[0]!), 0.4);
        addShare(credits, valueOf(journey[n - 1]!), 0.4);
        for (const touchpoint of journey.slice(1, -1)) addShare(credits, valueOf(touchpoint), 0.2 / (n - 2));
      }
      break;
  }
  return credits;
}

// A function of the module, not a closure made per call: creditsOf runs for every order under every model.
function addShare(credits: Map<DimensionValue, number>, value: DimensionValue, weight: number): void {
  credits.set(value, (credits.get(value) ?? 0) + weight);
}

/** The touchpoints that may take credit for an order: in (orderAt − window, orderAt], oldest first (ties by id). */
export function journeyInWindow(touchpoints: readonly Touchpoint[], orderAt: number, windowDays: number): Touchpoint[] {
  const from = orderAt - windowDays * DAY_MS;
  return touchpoints
    .filter((touchpoint) => touchpoint.at > from && touchpoint.at <= orderAt)
    .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Dimensions that join ad spend, and how each reads an ad. */
export const SPEND_JOINS: Partial<Record<AttributionDimension, (ad: Ad) => string>> = {
  source: (ad) => ad.platform,
  'channel.campaign_id': AD_ATTRIBUTE_FIELDS['channel.campaign_id']!,
  'channel.adset_id': AD_ATTRIBUTE_FIELDS['channel.adset_id']!,
  'channel.ad_id': AD_ATTRIBUTE_FIELDS['channel.ad_id']!,
};

export const SPEND_MEASURES = ['channel.spend', 'attribution.roas', 'attribution.cpa'] as const;
const ORDER_MONEY_MEASURES = new Set(['attribution.revenue', 'attribution.net_revenue', 'attribution.new_customer_revenue', 'attribution.roas']);
const SPEND_MONEY_MEASURES = new Set(['channel.spend', 'attribution.roas', 'attribution.cpa']);

export interface AttributionSpec {
  models: readonly AttributionModel[];
  windowDays: number;
  dimension: AttributionDimension;
  granularity: (typeof ATTRIBUTION_GRANULARITIES)[number];
  timezone: string;
  currency: string;
  measures: readonly string[];
  filters?: Filter;
  orderSettings: CountingSettings;
}

export interface AttributionRangeData {
  /** Orders placed in the range (others are ignored). */
  orders: readonly QueryOrder[];
  /** Who each order's customer is and their first counted order (counting-rules.ts). */
  customers: MetCustomers;
  /** Every known touchpoint of each order's person (the window is applied here). */
  touchpointsOf: ReadonlyMap<string, readonly Touchpoint[]>;
  /** The ads whose spend joins, with their cells over the range when read, else their hours. */
  ads: readonly AdDayInput[];
}

const cellKey = (bucket: number, value: DimensionValue) => `${bucket}\u0000${value === null ? '\u0000null' : value}`;

interface Cell {
  orders: number;
  revenue: number;
  netRevenue: number;
  newOrders: number;
  newRevenue: number;
  spend: Partial<Record<Platform, MetricParts>>;
}

const newCell = (): Cell => ({ orders: 0, revenue: 0, netRevenue: 0, newOrders: 0, newRevenue: 0, spend: {} });

interface Failures {
  orders?: string;
  spend?: string;
}

interface ModelResult {
  buckets: Bucket[];
  cells: Map<string, { bucket: number; value: DimensionValue; cell: Cell }>;
  total: Cell;
}

export interface AttributionRangeResult {
  byModel: Map<AttributionModel, ModelResult>;
  failures: Failures;
}

/** Credits every counted order of the range under each model, and joins spend when asked. */
export function computeAttributionRange(spec: AttributionSpec, range: InstantRange, data: AttributionRangeData, fx: FxTable): AttributionRangeResult {
  const buckets = bucketsOf(range, spec.granularity, spec.timezone)!;
  const failures: Failures = {};
  const filter = filterForFamily(spec.filters, 'orders');
  const money = new OrderMoney(fx, spec.currency);

  // What each counted order brings, whatever the model: its amounts and its journey in the window.
  const credited: Array<{ at: number; bucket: number; revenue: number; net: number; isNew: boolean; journey: Touchpoint[] }> = [];
  for (const order of data.orders) {
    const at = orderTimeOf(order);
    if (at < range.start || at >= range.end || !countsOrder(order, spec.orderSettings)) continue;
    const customer = data.customers.customerOf(order);
    const type = data.customers.firstOrderOf.get(customer) === order.orderId ? 'new' : 'returning';
    if (filter && !evaluateFilter(filter, (field) => ORDER_FILTER_FIELDS[field]?.(order, type))) continue;
    const revenue = money.of(order, order.value);
    const refunds = money.of(order, order.refunds.reduce((sum, refund) => sum + refund.amount, 0));
    credited.push({
      at,
      bucket: bucketIndex(buckets, at),
      revenue,
      net: revenue - refunds,
      isNew: type === 'new',
      journey: journeyInWindow(data.touchpointsOf.get(order.orderId) ?? [], at, spec.windowDays),
    });
  }
  failures.orders = money.failure;

  const byModel = new Map<AttributionModel, ModelResult>();
  const wantsSpend = spec.measures.some((measure) => (SPEND_MEASURES as readonly string[]).includes(measure));
  const spend = wantsSpend ? sumSpend(spec, range, data, fx, buckets, failures) : undefined;
  for (const model of spec.models) {
    const result: ModelResult = { buckets, cells: new Map(), total: newCell() };
    const cellFor = (bucket: number, value: DimensionValue) => {
      const key = cellKey(bucket, value);
      let entry = result.cells.get(key);
      if (!entry) result.cells.set(key, (entry = { bucket, value, cell: newCell() }));
      return entry.cell;
    };
    // The same cells by bucket and value, found without building a key for every credit.
    const byBucket: Array<Map<DimensionValue, Cell>> = buckets.map(() => new Map());
    for (const order of credited) {
      const cells = byBucket[order.bucket]!;
      for (const [value, share] of creditsOf(model, order.journey, order.at, spec.dimension)) {
        let cell = cells.get(value);
        if (!cell) cells.set(value, (cell = cellFor(order.bucket, value)));
        credit(cell, share, order);
        credit(result.total, share, order);
      }
    }
    if (spend) {
      // Read only from here on, so every model's cells share the range's sums.
      for (const { bucket, value, spend: parts } of spend.byCell.values()) cellFor(bucket, value).spend = parts;
      result.total.spend = spend.total;
    }
    byModel.set(model, result);
  }
  return { byModel, failures };
}

/** Adds `share` of an order to a cell. */
function credit(cell: Cell, share: number, order: { revenue: number; net: number; isNew: boolean }): void {
  cell.orders += share;
  cell.revenue += share * order.revenue;
  cell.netRevenue += share * order.net;
  if (order.isNew) {
    cell.newOrders += share;
    cell.newRevenue += share * order.revenue;
  }
}

type PlatformParts = Partial<Record<Platform, MetricParts>>;

/**
 * Spend by bucket and joined dimension value, and over the range: the same for every model, so
 * summed once per range (`sumAdDays`, the query's summer: each ad's cells per local day and UTC
 * date, each at its UTC date's rate) and shared by each model's cells.
 */
function sumSpend(spec: AttributionSpec, range: InstantRange, data: AttributionRangeData, fx: FxTable, buckets: readonly Bucket[], failures: Failures) {
  const byCell = new Map<string, { bucket: number; value: DimensionValue; spend: PlatformParts }>();
  const total: PlatformParts = {};
  const join = SPEND_JOINS[spec.dimension];
  if (!join) return { byCell, total };
  const unconvertible = sumAdDays({
    ads: data.ads,
    range,
    timeZone: spec.timezone,
    buckets,
    currency: spec.currency,
    fx,
    partsOf: (ad) => {
      const value = join(ad);
      return (bucket) => {
        const key = cellKey(bucket, value);
        let entry = byCell.get(key);
        if (!entry) byCell.set(key, (entry = { bucket, value, spend: {} }));
        return [(entry.spend[ad.platform] ??= emptyParts()), (total[ad.platform] ??= emptyParts())];
      };
    },
  });
  if (unconvertible) failures.spend ??= noExchangeRate(unconvertible, spec.currency);
  return { byCell, total };
}

const ratio = (numerator: number, denominator: number) => (denominator === 0 ? null : numerator / denominator);
const spendIn = (cell: Cell) => adMeasureFromPlatformParts('channel.spend', cell.spend) ?? 0;

function measureOf(measure: string, cell: Cell): number | null {
  switch (measure) {
    case 'attribution.orders':
      return cell.orders;
    case 'attribution.revenue':
      return cell.revenue;
    case 'attribution.net_revenue':
      return cell.netRevenue;
    case 'attribution.new_customer_orders':
      return cell.newOrders;
    case 'attribution.new_customer_revenue':
      return cell.newRevenue;
    case 'channel.spend':
      return spendIn(cell);
    case 'attribution.roas':
      return ratio(cell.revenue, spendIn(cell));
    case 'attribution.cpa':
      return ratio(spendIn(cell), cell.orders);
    default:
      throw new Error(`No computation for measure ${measure}`);
  }
}

function failureOf(measure: string, failures: Failures): string | undefined {
  if (ORDER_MONEY_MEASURES.has(measure) && failures.orders) return failures.orders;
  if (SPEND_MONEY_MEASURES.has(measure) && failures.spend) return failures.spend;
  return undefined;
}


export interface AttributionPoint {
  dt: string;
  start: string;
  end: string;
  [key: string]: string | number | null;
}

function pointsOf(spec: AttributionSpec, result: ModelResult, measures: readonly string[]): AttributionPoint[] {
  const entries = [...result.cells.values()].sort(
    (a, b) => a.bucket - b.bucket || (a.value === b.value ? 0 : a.value === null ? -1 : b.value === null ? 1 : a.value < b.value ? -1 : 1),
  );
  return entries.map(({ bucket, value, cell }) => {
    const point: AttributionPoint = { dt: result.buckets[bucket]!.dt, ...bucketLabels(result.buckets[bucket]!, spec.timezone), [spec.dimension]: value };
    for (const measure of measures) point[measure] = rounded(measureOf(measure, cell));
    return point;
  });
}

/** The response envelope: one result per model, in the order the models were asked for. */
export function shapeAttribution(
  spec: AttributionSpec,
  echo: { dateRange: unknown; compareDateRange: unknown },
  primary: AttributionRangeResult,
  compare: AttributionRangeResult | undefined,
) {
  const failures: Failures = { orders: primary.failures.orders ?? compare?.failures.orders, spend: primary.failures.spend ?? compare?.failures.spend };
  const computable = spec.measures.filter((measure) => failureOf(measure, failures) === undefined);
  return {
    results: spec.models.map((model) => {
      const primaryResult = primary.byModel.get(model)!;
      const compareResult = compare?.byModel.get(model);
      const measureDetails: MeasureDetail[] = spec.measures.map((measure) => {
        const entry = findMeasure(measure)!;
        const totals = (result: ModelResult) => rangeFigures(entry, measureOf(measure, result.total), result.buckets.length);
        return measureDetail(measure, entry, failureOf(measure, failures), totals(primaryResult), compareResult && totals(compareResult));
      });
      return {
        attributionModel: model,
        attributionWindow: spec.windowDays,
        dimension: spec.dimension,
        granularity: spec.granularity,
        dateRange: echo.dateRange,
        compareDateRange: echo.compareDateRange ?? null,
        timezone: spec.timezone,
        currency: spec.currency,
        measureDetails,
        data: {
          primary: pointsOf(spec, primaryResult, computable),
          compare: compareResult ? pointsOf(spec, compareResult, computable) : [],
        },
      };
    }),
  };
}
