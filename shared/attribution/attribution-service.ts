import { FxTable } from '../ads/fx-table';
import { loadAdDayCells, type AdDayInput } from '../analytics/ad-day-cells';
import { IdentityComponents } from '../analytics/identity-components';
import type { QueryOrder } from '../analytics/query-data';
import { metCustomers, NO_CUSTOMERS } from '../orders/counting-rules';
import type { Ad } from '../schemas/ad-import';
import type { QueryAttributionRequest } from '../schemas/query-attribution';
import { adKeyString, readAdHours, readAds, type HourlyMetrics } from '../analytics/store/ad-facts';
import { readFxTable } from '../analytics/store/fx-rates';
import { orderIdentifiers, readRangeJourneys, type JourneyGraph } from '../store/journey-repository';
import { readCustomerHistory, readOrderFacts } from '../analytics/store/order-store';
import type { InstantRange } from '../time/date-range';
import { computeAttributionRange, SPEND_JOINS, SPEND_MEASURES, type AttributionSpec } from './attribution-engine';
import type { Touchpoint } from './touchpoints';

/** Where an attribution query reads its facts: the read models, or, in tests, a hand-built set. */
export interface AttributionSource {
  fxTable(pixelId: string): Promise<FxTable>;
  ads(pixelId: string): Promise<readonly Ad[]>;
  adHours(pixelId: string, ads: readonly Ad[], range: InstantRange): Promise<Map<string, HourlyMetrics[]>>;
  /**
   * Each ad's cells over the range's calendar in `timeZone`, keyed by `adKeyString`, as the query
   * reads them (`loadAdDayCells`). A source without it gives hours, which the engine sums into
   * the same cells.
   */
  adCells?(pixelId: string, ads: readonly Ad[], range: InstantRange, timeZone: string): Promise<Map<string, Float64Array>>;
  /**
   * Orders placed in the range. An order whose customer digest is usable may come without its
   * customer's identifiers (the store's lean facts, as the query reads them): journeys are found
   * by order id and date, and who is new from the digest. The digest may be left out without `customers`.
   */
  ordersPlaced(pixelId: string, range: InstantRange, options: { customers: boolean }): Promise<QueryOrder[]>;
  customerHistory(pixelId: string, orders: readonly QueryOrder[]): Promise<QueryOrder[]>;
  /**
   * The journeys of orders placed in these ranges, read before the orders are known (alongside
   * them): a lookup of every touchpoint of each order's person that the longest window may credit.
   */
  journeys(pixelId: string, ranges: readonly InstantRange[]): Promise<(orders: readonly QueryOrder[]) => Map<string, Touchpoint[]>>;
}

export const attributionReadModelSource: AttributionSource = {
  fxTable: readFxTable,
  ads: readAds,
  adHours: readAdHours,
  adCells: loadAdDayCells,
  ordersPlaced: async (pixelId, range, options) => (await readOrderFacts(pixelId, range.start, range.end, { refunded: false, costs: false, customers: options.customers })).placed,
  customerHistory: readCustomerHistory,
  journeys: readRangeJourneys,
};

const CUSTOMER_MEASURES = ['attribution.new_customer_orders', 'attribution.new_customer_revenue'];

/**
 * Every touchpoint of each order's person, from the whole identity graph (the projector's rule,
 * for hand-built sets): a person is the identifiers seen together on an event or an order,
 * transitively, and an order belongs to the person of its own id (which its purchase events
 * carry) and its customer's identifiers.
 */
export function touchpointsByOrder(orders: readonly QueryOrder[], graph: JourneyGraph): Map<string, Touchpoint[]> {
  const people = new IdentityComponents();
  for (const order of orders) people.link(orderIdentifiers(order));
  for (const link of graph.links) people.link(link);
  const byPerson = new Map<string, Touchpoint[]>();
  for (const [identifier, touchpoints] of graph.touchpoints) {
    const person = people.root(identifier);
    const list = byPerson.get(person);
    if (list) list.push(...touchpoints);
    else byPerson.set(person, [...touchpoints]);
  }
  return new Map(orders.map((order) => [order.orderId, byPerson.get(people.root(`o:${order.orderId}`)) ?? []]));
}

/**
 * POST /db-mgmt/api/query-attribution: the orders of each range (P7's read models), the journeys
 * filed under the ranges' days and the ads' day cells when a measure asks for spend, all read at
 * once; then every model at once.
 */
export async function runAttributionQuery(pixelId: string, request: QueryAttributionRequest, source: AttributionSource = attributionReadModelSource) {
  const spec: AttributionSpec = {
    models: request.attributionModel,
    windowDays: request.attributionWindow,
    dimension: request.dimension,
    granularity: request.granularity,
    timezone: request.timezone,
    currency: request.currency,
    measures: request.measures,
    filters: request.filters,
    orderSettings: request.orderSettings,
  };
  const wantsSpend = spec.measures.some((measure) => (SPEND_MEASURES as readonly string[]).includes(measure)) && SPEND_JOINS[spec.dimension] !== undefined;
  const needsHistory = spec.measures.some((measure) => CUSTOMER_MEASURES.includes(measure)) || JSON.stringify(spec.filters ?? {}).includes('"orders.customer_type"');
  const ranges = request.compareRange ? [request.primaryRange, request.compareRange] : [request.primaryRange];
  const adList = wantsSpend ? source.ads(pixelId) : Promise.resolve([]);
  /** Each ad with its cells over the range (all attribution granularities are whole days), else its hours. */
  const adsOver = async (range: InstantRange): Promise<AdDayInput[]> => {
    const ads = await adList;
    if (ads.length === 0) return [];
    if (source.adCells) {
      const cells = await source.adCells(pixelId, ads, range, spec.timezone);
      return ads.map((ad) => ({ ad, hours: [], cells: cells.get(adKeyString(ad)) ?? new Float64Array(0) }));
    }
    const hours = await source.adHours(pixelId, ads, range);
    return ads.map((ad) => ({ ad, hours: hours.get(adKeyString(ad)) ?? [] }));
  };
  // Nothing here waits for the orders: the journeys are read by the ranges' days, in parallel.
  const [fx, primaryOrders, compareOrders, journeysOf, primaryAds, compareAds] = await Promise.all([
    source.fxTable(pixelId),
    source.ordersPlaced(pixelId, request.primaryRange, { customers: needsHistory }),
    request.compareRange ? source.ordersPlaced(pixelId, request.compareRange, { customers: needsHistory }) : [],
    source.journeys(pixelId, ranges),
    adsOver(request.primaryRange),
    request.compareRange ? adsOver(request.compareRange) : [],
  ]);
  const orders = [...primaryOrders, ...compareOrders];
  const touchpointsOf = journeysOf(orders);
  // Who is new comes from the customer digests the order facts carry; only the customers of
  // orders without a usable digest have their whole history read (as POST /query does).
  const undigested = needsHistory ? orders.filter((order) => !order.customerDigest || order.customerDigest.earlier === null) : [];
  const history = undigested.length > 0 ? await source.customerHistory(pixelId, undigested) : [];
  const customers = needsHistory ? metCustomers(orders, history, spec.orderSettings) : NO_CUSTOMERS;
  const primary = computeAttributionRange(spec, request.primaryRange, { orders: primaryOrders, customers, touchpointsOf, ads: primaryAds }, fx);
  const compare = request.compareRange ? computeAttributionRange(spec, request.compareRange, { orders: compareOrders, customers, touchpointsOf, ads: compareAds }, fx) : undefined;
  return { spec, primary, compare };
}
