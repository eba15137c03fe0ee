import type { AdMeasureId } from '../catalog/measures';
import { evaluateFilter } from '../filters/evaluate-filter';
import { filterUsesMetrics, metricFieldsOf, type Filter } from '../filters/filter-schema';
import type { QueryAdsRequest } from '../schemas/query-ads';
import type { Ad } from '../schemas/ad-import';
import { adKeyString, listAds, loadHourlyMetricsForAds, type HourlyMetrics } from '../store/ad-repository';
import { loadFxTable } from '../store/fx-repository';
import { AD_ATTRIBUTE_FIELDS, basicDetails } from './ad-details';
import { dailySeries, needsConversion, rangeCalendar, rangeTotals, type MoneyRate, type RangeCalendar, type SeriesPoint } from './ad-series';
import type { FxTable } from './fx-table';

export interface AdRow {
  basicDetails: ReturnType<typeof basicDetails>;
  data?: { primary: SeriesPoint[]; compare?: SeriesPoint[] };
}

/**
 * The ad listing (spec 4.2). The work is in proportion to the page: the ad directory is one
 * cached read, and hourly metrics are read only for the ads on the page and only for the
 * requested ranges. The one exception is a filter on metrics, which needs every candidate's
 * totals over `dateRange`; attribute conditions are applied first to keep that set small.
 */
export async function queryAds(pixelId: string, request: QueryAdsRequest) {
  const [ads, fx] = await Promise.all([listAds(pixelId), loadFxTable(pixelId)]);
  // Filtering keeps order, so the sorted directory (cached) is filtered rather than each result sorted.
  const ordered = sortedAds(ads, request.sortBy, request.sortDirection);
  const matching = request.filters ? await applyFilter(pixelId, ordered, request.filters, request, fx) : ordered;
  const page = matching.slice(request.offset, request.offset + request.limit);
  const rows = await buildRows(pixelId, page, request, fx);
  return {
    rows,
    pagination: {
      limit: request.limit,
      offset: request.offset,
      total: matching.length,
      hasMore: request.offset + page.length < matching.length,
    },
  };
}

async function applyFilter(pixelId: string, ads: readonly Ad[], filter: Filter, request: QueryAdsRequest, fx: FxTable): Promise<Ad[]> {
  const attribute = (ad: Ad, field: string) => AD_ATTRIBUTE_FIELDS[field]?.(ad);
  if (!filterUsesMetrics(filter)) return ads.filter((ad) => evaluateFilter(filter, (field) => attribute(ad, field)));

  // Conditions of a top-level `and` that read attributes only can narrow the set before any
  // metrics are loaded; the full filter is still evaluated on what remains.
  const attributeOnly = 'and' in filter ? filter.and.filter((child) => !filterUsesMetrics(child)) : [];
  const candidates = attributeOnly.length > 0 ? ads.filter((ad) => evaluateFilter({ and: attributeOnly }, (field) => attribute(ad, field))) : [...ads];
  const range = request.primaryRange!;
  const metrics = await loadHourlyMetricsForAds(pixelId, candidates, new Date(range.start), new Date(range.end));
  const measureIds = metricFieldsOf(filter) as AdMeasureId[];
  return candidates.filter((ad) => {
    const totals = rangeTotals({
      hours: metrics.get(adKeyString(ad)) ?? [],
      range,
      measures: measureIds,
      platform: ad.platform,
      rate: moneyRate(fx, ad.currency, request.currency),
    });
    return evaluateFilter(filter, (field) => attribute(ad, field) ?? totals[field]);
  });
}

async function buildRows(pixelId: string, page: readonly Ad[], request: QueryAdsRequest, fx: FxTable): Promise<AdRow[]> {
  const { measures, primaryRange, compareRange } = request;
  if (measures.length === 0 || !primaryRange) return page.map((ad) => ({ basicDetails: basicDetails(ad, request.currency, fx) }));

  // Each range is read on its own: a comparison a year earlier must not pull in the months between.
  const [primaryMetrics, compareMetrics] = await Promise.all([
    loadHourlyMetricsForAds(pixelId, page, new Date(primaryRange.start), new Date(primaryRange.end)),
    compareRange ? loadHourlyMetricsForAds(pixelId, page, new Date(compareRange.start), new Date(compareRange.end)) : undefined,
  ]);
  const primaryCalendar = rangeCalendar(primaryRange, request.timezone);
  const compareCalendar = compareRange ? rangeCalendar(compareRange, request.timezone) : undefined;
  return page.map((ad) => {
    const key = adKeyString(ad);
    const series = (calendar: RangeCalendar, metrics: Map<string, HourlyMetrics[]>) =>
      dailySeries({ hours: metrics.get(key) ?? [], calendar, measures, platform: ad.platform, rate: moneyRate(fx, ad.currency, request.currency) });
    const primary = series(primaryCalendar, primaryMetrics);
    const compare = compareCalendar && compareMetrics ? series(compareCalendar, compareMetrics) : undefined;
    // Without a rate for some hour the money measures of this ad cannot be stated honestly, so
    // they are left out of its data rather than reported from a partial sum.
    if (!primary.convertible || (compare && !compare.convertible)) {
      for (const point of [...primary.points, ...(compare?.points ?? [])]) {
        for (const measure of measures) if (needsConversion(measure)) delete point[measure];
      }
    }
    return {
      basicDetails: basicDetails(ad, request.currency, fx),
      data: { primary: primary.points, ...(compare ? { compare: compare.points } : {}) },
    };
  });
}

function moneyRate(fx: FxTable, from: string, to: string): MoneyRate {
  return (utcDate) => fx.convert(1, from, to, utcDate);
}

const SORT_KEYS = {
  sourceUpdatedAt: (ad: Ad) => ad.updatedAt,
  sourceCreatedAt: (ad: Ad) => ad.createdAt,
  resourceName: (ad: Ad) => ad.adName,
} as const;

/**
 * `listAds` returns the same frozen list until an import changes the directory, so its sorted
 * orders can be kept with it: they are dropped with the list, never stale.
 */
const sortedByList = new WeakMap<readonly Ad[], Map<string, readonly Ad[]>>();

function sortedAds(ads: readonly Ad[], sortBy: keyof typeof SORT_KEYS, direction: 'asc' | 'desc'): readonly Ad[] {
  let orders = sortedByList.get(ads);
  if (!orders) {
    orders = new Map();
    sortedByList.set(ads, orders);
  }
  const key = `${sortBy}:${direction}`;
  let sorted = orders.get(key);
  if (!sorted) {
    sorted = Object.freeze(sortAds(ads, sortBy, direction));
    orders.set(key, sorted);
  }
  return sorted;
}

/**
 * A total order: the requested key, then the ad's platform and id, so paging never repeats or
 * skips a row however many ads share a name or a timestamp. Timestamps compare as instants;
 * names by code point, the same on every runtime.
 */
export function sortAds(ads: readonly Ad[], sortBy: keyof typeof SORT_KEYS, direction: 'asc' | 'desc'): Ad[] {
  const key = SORT_KEYS[sortBy];
  const sign = direction === 'asc' ? 1 : -1;
  const decorated = ads.map((ad) => {
    const raw = key(ad);
    return { ad, value: sortBy === 'resourceName' ? raw : Date.parse(raw), tieBreak: adKeyString(ad) };
  });
  decorated.sort((a, b) => {
    if (a.value !== b.value) return (a.value < b.value ? -1 : 1) * sign;
    return a.tieBreak < b.tieBreak ? -1 : a.tieBreak > b.tieBreak ? 1 : 0;
  });
  return decorated.map((entry) => entry.ad);
}

