import { FxTable } from '../ads/fx-table';
import { IdentityComponents } from '../analytics/identity-components';
import type { QueryOrder } from '../analytics/query-data';
import { metCustomers } from '../orders/counting-rules';
import type { Ad } from '../schemas/ad-import';
import type { QueryAttributionRequest } from '../schemas/query-attribution';
import { adKeyString, listAds, loadHourlyMetricsForAds, type HourlyMetrics } from '../store/ad-repository';
import { loadFxTable } from '../store/fx-repository';
import { orderIdentifiers, readOrderJourneys, type JourneyGraph } from '../store/journey-repository';
import { readCustomerHistory, readOrdersPlaced } from '../store/query-read-models';
import type { InstantRange } from '../time/date-range';
import { computeAttributionRange, SPEND_JOINS, SPEND_MEASURES, type AttributionSpec } from './attribution-engine';
import type { Touchpoint } from './touchpoints';

/** Where an attribution query reads its facts: the read models, or, in tests, a hand-built set. */
export interface AttributionSource {
  fxTable(pixelId: string): Promise<FxTable>;
  ads(pixelId: string): Promise<readonly Ad[]>;
  adHours(pixelId: string, ads: readonly Ad[], range: InstantRange): Promise<Map<string, HourlyMetrics[]>>;
  ordersPlaced(pixelId: string, range: InstantRange): Promise<QueryOrder[]>;
  customerHistory(pixelId: string, orders: readonly QueryOrder[]): Promise<QueryOrder[]>;
  /** Every touchpoint of each order's person that the longest window may credit. */
  journeys(pixelId: string, orders: readonly QueryOrder[]): Promise<Map<string, Touchpoint[]>>;
}

export const attributionReadModelSource: AttributionSource = {
  fxTable: loadFxTable,
  ads: listAds,
  adHours: (pixelId, ads, range) => loadHourlyMetricsForAds(pixelId, ads, new Date(range.start), new Date(range.end)),
  ordersPlaced: (pixelId, range) => readOrdersPlaced(pixelId, range.start, range.end),
  customerHistory: readCustomerHistory,
  journeys: readOrderJourneys,
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
 * filed with those orders (read by order day), spend when a measure asks for it; then every model at once.
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
  const [fx, ads, primaryOrders, compareOrders] = await Promise.all([
    source.fxTable(pixelId),
    wantsSpend ? source.ads(pixelId) : [],
    source.ordersPlaced(pixelId, request.primaryRange),
    request.compareRange ? source.ordersPlaced(pixelId, request.compareRange) : [],
  ]);
  const orders = [...primaryOrders, ...compareOrders];
  const undigested = orders.filter((order) => !order.customerDigest || order.customerDigest.earlier === null);
  const needsHistory = spec.measures.some((measure) => CUSTOMER_MEASURES.includes(measure)) || JSON.stringify(spec.filters ?? {}).includes('"orders.customer_type"');
  const [history, touchpointsOf, primaryHours, compareHours] = await Promise.all([
    // Who is new comes from the customer digests the order facts carry; only the customers of
    // orders without a usable digest have their whole history read (as POST /query does).
    needsHistory && undigested.length > 0 ? source.customerHistory(pixelId, undigested) : [],
    source.journeys(pixelId, orders),
    wantsSpend && ads.length > 0 ? source.adHours(pixelId, ads, request.primaryRange) : new Map<string, HourlyMetrics[]>(),
    wantsSpend && ads.length > 0 && request.compareRange ? source.adHours(pixelId, ads, request.compareRange) : new Map<string, HourlyMetrics[]>(),
  ]);
  const customers = needsHistory ? metCustomers(orders, history, spec.orderSettings) : { customerOf: new Map<string, string>(), firstOrderOf: new Map<string, string>() };
  const adsWith = (hours: Map<string, HourlyMetrics[]>) => ads.map((ad) => ({ ad, hours: hours.get(adKeyString(ad)) ?? [] }));
  const primary = computeAttributionRange(spec, request.primaryRange, { orders: primaryOrders, customers, touchpointsOf, ads: adsWith(primaryHours) }, fx);
  const compare = request.compareRange ? computeAttributionRange(spec, request.compareRange, { orders: compareOrders, customers, touchpointsOf, ads: adsWith(compareHours) }, fx) : undefined;
  return { spec, primary, compare };
}
