import { AD_ATTRIBUTE_FIELDS } from '../ads/ad-details';
import { FxTable } from '../ads/fx-table';
import { evaluateFilter } from '../filters/evaluate-filter';
import { metCustomers, NO_CUSTOMERS } from '../orders/counting-rules';
import type { Ad } from '../schemas/ad-import';
import type { QueryRequest } from '../schemas/query-measures';
import { adKeyString, readAdHours, readAds, type HourlyMetrics } from './store/ad-facts';
import { loadAdDayCells } from './ad-day-cells';
import { readFxTable } from './store/fx-rates';
import { readCustomerHistory, readOrderFacts } from './store/order-store';
import { readEventCounts, readEvents } from './store/event-facts';
import type { InstantRange } from '../time/date-range';
import { filterForFamily } from './filter-namespaces';
import { countsSuffice } from './query-plan';
import type { QueryEvent, QueryOrder, RangeData } from './query-data';
import { CostBook } from '../costs/order-costs';
import { loadCostSettings } from '../store/cost-settings-repository';
import { readSkuCosts } from './store/sku-costs';
import { computeRange, DAY_GRANULARITIES, familiesNeeded, needsCosts, needsCustomerHistory, shapeResult, type QuerySpec } from './query-engine';

/** Where a query reads its facts: the read models, or, in tests, a hand-built set. */
export interface QuerySource {
  fxTable(pixelId: string): Promise<FxTable>;
  ads(pixelId: string): Promise<readonly Ad[]>;
  adHours(pixelId: string, ads: readonly Ad[], range: InstantRange): Promise<Map<string, HourlyMetrics[]>>;
  /**
   * Each ad's cells over `rangeCalendar(range, timeZone)`, summed from the hours by the store,
   * keyed by `adKeyString`; read for granularities of whole days. A source without it gives
   * hours, which the engine sums into the same cells.
   */
  adCells?(pixelId: string, ads: readonly Ad[], range: InstantRange, timeZone: string): Promise<Map<string, Float64Array>>;
  /**
   * Orders placed in the range and, with `refunded`, the orders with a refund processed in the
   * range, read together. Each may carry its customer digest (query-data.ts), and an order whose
   * digest is usable may come without its customer's identifiers (store's `leanFact`). A source
   * may leave out what the options do not ask for: items and shipping cost without `costs`, the
   * digest without `customers`.
   */
  orderFacts(pixelId: string, range: InstantRange, options: { refunded: boolean; costs: boolean; customers: boolean }): Promise<{ placed: QueryOrder[]; refunded: QueryOrder[] }>;
  /** Every stored order of the customers of `orders` (read only for orders without a usable digest). */
  customerHistory(pixelId: string, orders: readonly QueryOrder[]): Promise<QueryOrder[]>;
  events(pixelId: string, range: InstantRange): Promise<QueryEvent[]>;
  /** Event counts by UTC hour and name, and by UTM values with `byUtm` (no identities), for ranges on whole hours. */
  eventCounts(pixelId: string, range: InstantRange, byUtm: boolean): Promise<QueryEvent[]>;
  /** The pixel's cost settings and SKU costs (issue P9), read only by queries with cost measures. */
  costs(pixelId: string): Promise<CostBook>;
}

async function loadCostBook(pixelId: string): Promise<CostBook> {
  const [settings, skuCosts] = await Promise.all([loadCostSettings(pixelId), readSkuCosts(pixelId)]);
  return new CostBook(settings?.settings, skuCosts);
}

export const readModelSource: QuerySource = {
  fxTable: readFxTable,
  ads: readAds,
  adHours: readAdHours,
  adCells: loadAdDayCells,
  orderFacts: (pixelId, range, options) => readOrderFacts(pixelId, range.start, range.end, options),
  customerHistory: readCustomerHistory,
  events: readEvents,
  eventCounts: readEventCounts,
  costs: loadCostBook,
};

/** Whether a query splits or narrows events by a UTM value (else the rollup by hour and name answers it). */
function readsUtm(spec: QuerySpec): boolean {
  return spec.dimensions.some((dimension) => dimension.startsWith('events.utm_')) || JSON.stringify(spec.filters ?? {}).includes('"events.utm_');
}

/** Measures that read refunds; only they make a `refund_date` query read the refund-day items. */
const REFUND_MEASURES = ['orders.refunds', 'orders.net_revenue', 'core.mer', 'orders.cm1', 'orders.cm2', 'core.cm3'];

/**
 * POST /db-mgmt/api/query: reads what the measures need for each range (in parallel, each range
 * on its own so a comparison a year back never reads the months between), then computes.
 */
export async function runQuery(pixelId: string, request: QueryRequest, source: QuerySource = readModelSource) {
  const spec: QuerySpec = {
    measures: request.measures,
    dimensions: request.dimensions,
    granularity: request.granularity,
    timezone: request.timezone,
    currency: request.currency,
    filters: request.filters,
    orderSettings: request.orderSettings,
  };
  const families = familiesNeeded(spec.measures);
  const [fx, ads, costs] = await Promise.all([
    families.has('orders') || families.has('channel') ? source.fxTable(pixelId) : new FxTable([]),
    families.has('channel') ? source.ads(pixelId) : [],
    needsCosts(spec.measures) ? source.costs(pixelId) : new CostBook(),
  ]);
  const channelFilter = filterForFamily(spec.filters, 'channel');
  const matchingAds = channelFilter ? ads.filter((ad) => evaluateFilter(channelFilter, (field) => AD_ATTRIBUTE_FIELDS[field]?.(ad))) : ads;

  const load = (range: InstantRange) => loadRange(source, pixelId, spec, range, families, matchingAds);
  const [primaryFacts, compareFacts] = await Promise.all([load(request.primaryRange), request.compareRange ? load(request.compareRange) : undefined]);
  // Who is new is decided over each met customer's whole history: the digest an order carries
  // sums it up; for orders without one, the history is read, once for both ranges, and only when a
  // measure, dimension or filter asks who is new.
  const met = [primaryFacts, compareFacts].flatMap((facts) => (facts ? [...facts.orders, ...facts.refundedOrders] : []));
  const wantsCustomers = needsCustomerHistory(spec);
  const undigested = wantsCustomers ? met.filter((order) => !order.customerDigest || order.customerDigest.earlier === null) : [];
  const history = undigested.length > 0 ? await source.customerHistory(pixelId, undigested) : [];
  const customers = wantsCustomers ? metCustomers(met, history, spec.orderSettings) : NO_CUSTOMERS;
  const primaryData: RangeData = { ...primaryFacts, customers };
  const compareData: RangeData | undefined = compareFacts && { ...compareFacts, customers };
  const primary = computeRange(spec, request.primaryRange, primaryData, fx, costs);
  const compare = request.compareRange && compareData ? computeRange(spec, request.compareRange, compareData, fx, costs) : undefined;
  return shapeResult(spec, { dateRange: request.dateRange, compareDateRange: request.compareDateRange }, primary, compare);
}

async function loadRange(
  source: QuerySource,
  pixelId: string,
  spec: QuerySpec,
  range: InstantRange,
  families: ReturnType<typeof familiesNeeded>,
  ads: readonly Ad[],
): Promise<Omit<RangeData, 'customers'>> {
  const wantsOrders = families.has('orders');
  const wantsRefundDays = wantsOrders && spec.orderSettings.refundDateAttribution === 'refund_date' && spec.measures.some((measure) => REFUND_MEASURES.includes(measure));
  const byDayCells = families.has('channel') && ads.length > 0 && DAY_GRANULARITIES.has(spec.granularity) && source.adCells !== undefined;
  const [{ placed: orders, refunded: refundedOrders }, events, hours, cells] = await Promise.all([
    wantsOrders ? source.orderFacts(pixelId, range, { refunded: wantsRefundDays, costs: needsCosts(spec.measures), customers: needsCustomerHistory(spec) }) : { placed: [], refunded: [] },
    families.has('events') ? (countsSuffice(spec, range) ? source.eventCounts(pixelId, range, readsUtm(spec)) : source.events(pixelId, range)) : [],
    families.has('channel') && ads.length > 0 && !byDayCells ? source.adHours(pixelId, ads, range) : new Map<string, HourlyMetrics[]>(),
    byDayCells ? source.adCells!(pixelId, ads, range, spec.timezone) : undefined,
  ]);
  return {
    orders,
    refundedOrders,
    events,
    ads: ads.map((ad) => {
      const key = adKeyString(ad);
      return cells ? { ad, hours: [], cells: cells.get(key) ?? new Float64Array(0) } : { ad, hours: hours.get(key) ?? [] };
    }),
  };
}
