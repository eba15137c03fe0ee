import { findDimension, measureFamily, type DimensionFamily } from '../catalog/dimensions';
import type { QueryAdsRequest } from '../schemas/query-ads';
import type { QueryAttributionRequest } from '../schemas/query-attribution';
import type { QueryCohortRequest } from '../schemas/query-cohort';
import type { QueryRequest } from '../schemas/query-measures';
import { bucketsOf, type Granularity } from '../time/buckets';
import { resolveDateRange, type InstantRange } from '../time/date-range';
import { countsSuffice } from './query-plan';

/**
 * What an analytics request costs, estimated from the request and the catalogs before any data
 * is read: the values its answer holds (time buckets × series × measures), the days of stored
 * facts it reads, the days whose events it reads one by one, and the answer's size. A request
 * over a cap is refused at once (400, with the estimate and how to narrow it) instead of being
 * built and then found too large; the rest is charged to the key's cost quota in units, so one
 * key cannot keep the service busy with requests each just under the caps.
 *
 * Series are counted before the data is known: a split by a dimension counts the values a pixel
 * typically has (`expectedValues` of the dimension catalog), several dimensions the product,
 * never more than a family's ceiling (channel splits cannot outnumber the ads).
 */
export interface RequestPrice {
  /** Time buckets of every range the answer holds. */
  buckets: number;
  /** Dimension values (or ads, for query-ads) the answer is split into, estimated. */
  series: number;
  /** Measures, times the models of an attribution query. */
  measures: number;
  /** `buckets × series × measures`: the values the answer holds. */
  values: number;
  /** Days of stored facts read, over every range and every fact family the request reads. */
  factDays: number;
  /** Days whose every event is read one by one: people measures, or buckets not on whole UTC hours. */
  eventDays: number;
  /** The answer's size as JSON, estimated. */
  bytes: number;
  /** Cost units charged to the key's cost quota. */
  units: number;
}

export const PRICE_CAPS = {
  /** Values one answer may hold. */
  values: 2_000_000,
  /** Days of events one request may read one by one. */
  eventDays: 120,
} as const;

/** A unit is this many values or this many days of events read one by one; every request costs one more. */
export const COST_UNIT = { values: 10_000, eventDays: 10 } as const;

/** Bytes of JSON per value of an answer: its key, the number and the separators. */
const BYTES_PER_VALUE = 20;

/** Series one split can reach, whatever the product of its dimensions' values. */
export const SERIES_CEILING: Readonly<Record<DimensionFamily, number>> = { orders: 1_000, events: 1_000, channel: 200 };

/** Values of the attribution dimensions, as the dimension catalog's `expectedValues`. */
const ATTRIBUTION_EXPECTED_VALUES: Readonly<Record<string, number>> = {
  source: 10,
  utm_source: 30,
  utm_medium: 15,
  utm_campaign: 50,
  utm_content: 50,
  utm_term: 50,
  'channel.campaign_id': 50,
  'channel.adset_id': 100,
  'channel.ad_id': 200,
};

const DAY_MS = 86_400_000;
const daysIn = (range: InstantRange) => Math.max(1, Math.ceil((range.end - range.start) / DAY_MS));
const bucketCount = (range: InstantRange, granularity: Granularity, timeZone: string) => bucketsOf(range, granularity, timeZone)?.length ?? 0;

/** A price from its parts: the values are their product, the units follow from the values and the event days. */
export function priceOf(parts: Pick<RequestPrice, 'buckets' | 'series' | 'measures' | 'factDays' | 'eventDays'>): RequestPrice {
  const values = parts.buckets * parts.series * parts.measures;
  return {
    ...parts,
    values,
    bytes: values * BYTES_PER_VALUE,
    units: 1 + Math.ceil(values / COST_UNIT.values) + Math.ceil(parts.eventDays / COST_UNIT.eventDays),
  };
}

/** The series a split by these dimensions is expected to have. */
export function expectedSeries(dimensions: readonly string[]): number {
  if (dimensions.length === 0) return 1;
  const family = findDimension(dimensions[0]!)!.family;
  const product = dimensions.reduce((total, id) => total * (findDimension(id)?.expectedValues ?? 1), 1);
  return Math.min(product, SERIES_CEILING[family]);
}

/** POST /db-mgmt/api/query. */
export function priceQuery(request: QueryRequest): RequestPrice {
  const ranges = [request.primaryRange, request.compareRange].filter((range): range is InstantRange => range !== undefined);
  const families = new Set(request.measures.map(measureFamily));
  // A blended measure reads orders and spend.
  const factFamilies = new Set<DimensionFamily>([...families].flatMap((family) => (family === 'core' ? (['orders', 'channel'] as const) : [family])));
  const readsEventLevel = (range: InstantRange) => families.has('events') && !countsSuffice(request, range);
  return priceOf({
    buckets: ranges.reduce((total, range) => total + bucketCount(range, request.granularity, request.timezone), 0),
    series: expectedSeries(request.dimensions),
    measures: request.measures.length,
    factDays: ranges.reduce((total, range) => total + daysIn(range) * factFamilies.size, 0),
    eventDays: ranges.reduce((total, range) => total + (readsEventLevel(range) ? daysIn(range) : 0), 0),
  });
}

/** POST /db-mgmt/api/query-ads: a page of ads, each with a daily series per range. */
export function priceQueryAds(request: QueryAdsRequest): RequestPrice {
  const ranges = request.measures.length > 0 ? [request.primaryRange, request.compareRange].filter((range): range is InstantRange => range !== undefined) : [];
  const days = ranges.reduce((total, range) => total + daysIn(range), 0);
  return priceOf({
    buckets: Math.max(1, days),
    series: request.limit,
    measures: Math.max(1, request.measures.length),
    factDays: days,
    eventDays: 0,
  });
}

/** POST /db-mgmt/api/query-attribution: every model's measures per bucket and dimension value. */
export function priceAttribution(request: QueryAttributionRequest): RequestPrice {
  const ranges = [request.primaryRange, request.compareRange].filter((range): range is InstantRange => range !== undefined);
  const models = Array.isArray(request.attributionModel) ? request.attributionModel.length : 1;
  return priceOf({
    buckets: ranges.reduce((total, range) => total + bucketCount(range, request.granularity, request.timezone), 0),
    series: ATTRIBUTION_EXPECTED_VALUES[request.dimension] ?? 1,
    measures: request.measures.length * models,
    // Orders, the journeys before them (the window back from the range's start) and spend.
    factDays: ranges.reduce((total, range) => total + daysIn(range) * 3 + request.attributionWindow, 0),
    eventDays: 0,
  });
}

/** POST /db-mgmt/api/query-cohort-analysis: each cohort's measures per period. */
export function priceCohort(request: QueryCohortRequest): RequestPrice {
  const window = resolveDateRange(request.dateRange, request.timezone);
  const cohorts = bucketCount(window, request.granularity, request.timezone);
  const periodDays = { week: 7, month: 31, year: 366 }[request.granularity];
  return priceOf({
    buckets: cohorts * (request.periods + 1),
    series: 1,
    measures: request.measures.length,
    factDays: daysIn(window) + request.periods * periodDays,
    eventDays: 0,
  });
}
