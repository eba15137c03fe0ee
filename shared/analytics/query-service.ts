import { FxTable } from '../ads/fx-table';
import { AD_ATTRIBUTE_FIELDS } from '../ads/ad-details';
import { evaluateFilter } from '../filters/evaluate-filter';
import { firstCountedOrders } from '../orders/counting-rules';
import type { QueryRequest } from '../schemas/query-measures';
import { listAds, loadHourlyMetricsForAds, adKeyString } from '../store/ad-repository';
import { loadFxTable } from '../store/fx-repository';
import { readCustomerHistory, readEventFacts, readOrdersPlaced, readOrdersRefunded } from '../store/query-read-models';
import type { InstantRange } from '../time/date-range';
import { filterForFamily } from './filter-namespaces';
import type { RangeData } from './query-data';
import { computeRange, familiesNeeded, needsCustomerHistory, shapeResult, type QuerySpec } from './query-engine';

/** Measures that read refunds; only they make a `refund_date` query read the refund-day items. */
const REFUND_MEASURES = ['orders.refunds', 'orders.net_revenue', 'core.mer'];

/**
 * POST /db-mgmt/api/query: reads what the measures need for each range (in parallel, each range
 * on its own so a comparison a year back never reads the months between), then computes.
 */
export async function runQuery(pixelId: string, request: QueryRequest) {
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
  const [fx, ads] = await Promise.all([
    families.has('orders') || families.has('channel') ? loadFxTable(pixelId) : new FxTable([]),
    families.has('channel') ? listAds(pixelId) : [],
  ]);
  const channelFilter = filterForFamily(spec.filters, 'channel');
  const matchingAds = channelFilter ? ads.filter((ad) => evaluateFilter(channelFilter, (field) => AD_ATTRIBUTE_FIELDS[field]?.(ad))) : ads;

  const load = (range: InstantRange) => loadRange(pixelId, spec, range, families, matchingAds);
  const [primaryData, compareData] = await Promise.all([load(request.primaryRange), request.compareRange ? load(request.compareRange) : undefined]);
  const primary = computeRange(spec, request.primaryRange, primaryData, fx);
  const compare = request.compareRange && compareData ? computeRange(spec, request.compareRange, compareData, fx) : undefined;
  return shapeResult(spec, { dateRange: request.dateRange, compareDateRange: request.compareDateRange }, primary, compare);
}

async function loadRange(
  pixelId: string,
  spec: QuerySpec,
  range: InstantRange,
  families: ReturnType<typeof familiesNeeded>,
  ads: Awaited<ReturnType<typeof listAds>>,
): Promise<RangeData> {
  const wantsOrders = families.has('orders');
  const wantsRefundDays = wantsOrders && spec.orderSettings.refundDateAttribution === 'refund_date' && spec.measures.some((measure) => REFUND_MEASURES.includes(measure));
  const [orders, refundedOrders, events, hours] = await Promise.all([
    wantsOrders ? readOrdersPlaced(pixelId, range.start, range.end) : [],
    wantsRefundDays ? readOrdersRefunded(pixelId, range.start, range.end) : [],
    families.has('events') ? readEventFacts(pixelId, range.start, range.end) : [],
    families.has('channel') && ads.length > 0 ? loadHourlyMetricsForAds(pixelId, ads, new Date(range.start), new Date(range.end)) : new Map(),
  ]);
  // Who is new is decided over each met customer's whole history, read only when asked for.
  const history = needsCustomerHistory(spec) ? await readCustomerHistory(pixelId, [...orders, ...refundedOrders]) : [];
  return {
    orders,
    refundedOrders,
    customers: firstCountedOrders(history, spec.orderSettings),
    events,
    ads: ads.map((ad) => ({ ad, hours: hours.get(adKeyString(ad)) ?? [] })),
  };
}
