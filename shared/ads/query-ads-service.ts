import type { AdMeasureId } from '../catalog/measures';
import { evaluateFilter } from '../filters/evaluate-filter';
import { filterUsesMetrics, metricFieldsOf, type Filter } from '../filters/filter-schema';
import type { QueryAdsRequest } from '../schemas/query-ads';
import type { Ad } from '../schemas/ad-import';
import { adKeyString, readAdCells, readAds } from '../analytics/store/ad-facts';
import { readFxTable } from '../analytics/store/fx-rates';
import type { InstantRange } from '../time/date-range';
import { AD_ATTRIBUTE_FIELDS, basicDetails } from './ad-details';
import {
  calendarOf,
  needsConversion,
  RateCache,
  seriesFromCells,
  totalsFromCells,
  type ColumnSeries,
  type RangeCalendar,
  type SeriesPoint,
} from './ad-series';
import type { FxTable } from './fx-table';
import { asciiBytes, AsciiJsonWriter, type JsonText } from '../http/json-text';

/** One ad's series in the columnar format: `day` indexes the response's calendar; one array per measure. */
export type ColumnarSeries = { day: number[] } & Record<string, Array<number | null> | number[]>;

export interface AdRow {
  basicDetails: ReturnType<typeof basicDetails>;
  data?: { primary: SeriesPoint[]; compare?: SeriesPoint[] };
}

export interface ColumnarAdRow {
  basicDetails: ReturnType<typeof basicDetails>;
  data?: { primary: ColumnarSeries; compare?: ColumnarSeries };
}

/** The days a columnar response's `day` indexes point at, one array per member. */
export interface CalendarColumns {
  dt: string[];
  start: string[];
  end: string[];
}

/**
 * The ad listing (spec 4.2). The ads' metadata is one cached read of the ads table; metrics are
 * summed by DuckDB from the live hours of the page's ads over the requested ranges only, into
 * cells per local day and UTC date (ad-facts.ts `readAdCells`), which the series then convert and
 * measure. The one exception is a filter on metrics, which needs every candidate's totals over
 * `dateRange`; attribute conditions are applied first to keep that set small.
 */
export async function queryAds(pixelId: string, request: QueryAdsRequest) {
  const [ads, fx] = await Promise.all([readAds(pixelId), readFxTable(pixelId)]);
  const context: MetricsContext = {
    pixelId,
    rates: new RateCache((from) => (utcDate) => fx.convert(1, from, request.currency, utcDate)),
  };
  // Filtering keeps order, so the sorted list (cached) is filtered rather than each result sorted.
  const ordered = sortedAds(ads, request.sortBy, request.sortDirection);
  const matching = request.filters ? await applyFilter(context, ordered, request.filters, request) : ordered;
  const page = matching.slice(request.offset, request.offset + request.limit);
  const pagination = {
    limit: request.limit,
    offset: request.offset,
    total: matching.length,
    hasMore: request.offset + page.length < matching.length,
  };
  const series = await buildSeries(context, page, request);
  return request.format === 'columnar' ? columnarText(page, series, request, fx, pagination) : rowsText(page, series, request, fx, pagination);
}

type Pagination = QueryAdsPage['pagination'];

/** The body of a query-ads answer, for callers that read it as an object rather than send it. */
export interface QueryAdsPage {
  format?: 'columnar';
  calendar?: { primary: CalendarColumns; compare?: CalendarColumns };
  rows: Array<AdRow | ColumnarAdRow>;
  pagination: { limit: number; offset: number; total: number; hasMore: boolean };
}

/*
 * The answer is written as JSON text directly (http/json-text.ts): each point is its calendar
 * day's bounds, written once per request, and its values, with no object per point. The text is
 * what JSON.stringify gives for the shapes AdRow and ColumnarAdRow: the same keys in the same order.
 */

function rowsText(page: readonly Ad[], series: PageSeries | undefined, request: QueryAdsRequest, fx: FxTable, pagination: Pagination): JsonText {
  const primaryDays = series && pointDays(series.primaryCalendar);
  const compareDays = series?.compareCalendar && pointDays(series.compareCalendar);
  const parts = new AsciiJsonWriter();
  parts.push('{"rows":[');
  page.forEach((ad, index) => {
    parts.push(index === 0 ? '{"basicDetails":' : ',{"basicDetails":', asciiJson(basicDetails(ad, request.currency, fx)));
    if (series) {
      const { primary, compare } = series.byAd[index] as AdSeries;
      parts.push(',"data":{"primary":');
      writePoints(parts, primary, primaryDays as CalendarDay[]);
      if (compare && compareDays) {
        parts.push(',"compare":');
        writePoints(parts, compare, compareDays);
      }
      parts.push('}');
    }
    parts.push('}');
  });
  parts.push('],"pagination":', JSON.stringify(pagination), '}');
  return parts.finish();
}

function columnarText(page: readonly Ad[], series: PageSeries | undefined, request: QueryAdsRequest, fx: FxTable, pagination: Pagination): JsonText {
  const parts = new AsciiJsonWriter();
  parts.push('{"format":"columnar"');
  if (series) {
    const calendar = { primary: calendarColumns(series.primaryCalendar), ...(series.compareCalendar ? { compare: calendarColumns(series.compareCalendar) } : {}) };
    parts.push(',"calendar":', JSON.stringify(calendar));
  }
  parts.push(',"rows":[');
  page.forEach((ad, index) => {
    parts.push(index === 0 ? '{"basicDetails":' : ',{"basicDetails":', asciiJson(basicDetails(ad, request.currency, fx)));
    if (series) {
      const { primary, compare } = series.byAd[index] as AdSeries;
      parts.push(',"data":{"primary":', columnsText(primary));
      if (compare) parts.push(',"compare":', columnsText(compare));
      parts.push('}');
    }
    parts.push('}');
  });
  parts.push('],"pagination":', JSON.stringify(pagination), '}');
  return parts.finish();
}

/**
 * JSON with every character past ASCII written as a `\u` escape (the same value to any JSON
 * reader). Ad names carry dashes and accents; one such character anywhere made the whole body a
 * two-byte string, twice the memory of the page's largest allocation, and slower to encode.
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Each calendar day's point opening, `{"dt":…,"start":…,"end":…`, encoded once per request. */
function pointDays(calendar: RangeCalendar): CalendarDay[] {
  return calendar.days.map((day) => ({ opening: asciiBytes(asciiJson({ dt: day.date, start: day.startLabel, end: day.endLabel }).slice(0, -1)) }));
}

interface CalendarDay {
  /** The point's JSON up to its last member, without the closing brace. */
  opening: Uint8Array;
}

/**
 * A series as the rows format's points, written straight into the body as the text
 * JSON.stringify gives for the point objects (`{dt, start, end, <measure>: value, ...}`; NaN, how
 * a series holds null, as null) without building them: each day's opening and each member name
 * are bytes encoded once per request, and each value's digits go into the body with no string
 * (AsciiJsonWriter.pushNumber). A page of 500 ads is 45,000 points and 450,000 values; their
 * objects, then their strings, were the largest part of a request's time and garbage.
 */
function writePoints(writer: AsciiJsonWriter, series: ColumnSeries, days: readonly CalendarDay[]): void {
  const measures = Object.keys(series.values);
  const keys = measures.map((measure) => memberBytes(measure));
  const columns = measures.map((measure) => series.values[measure] as Float64Array);
  const count = series.day.length;
  writer.pushBytes(OPEN_ARRAY);
  for (let i = 0; i < count; i++) {
    if (i > 0) writer.pushBytes(COMMA);
    writer.pushBytes((days[series.day[i] as number] as CalendarDay).opening);
    for (let m = 0; m < columns.length; m++) {
      writer.pushBytes(keys[m] as Uint8Array);
      writer.pushNumber((columns[m] as Float64Array)[i] as number);
    }
    writer.pushBytes(CLOSE_OBJECT);
  }
  writer.pushBytes(CLOSE_ARRAY);
}

const OPEN_ARRAY = asciiBytes('[');
const CLOSE_ARRAY = asciiBytes(']');
const COMMA = asciiBytes(',');
const CLOSE_OBJECT = asciiBytes('}');

/** `,"<measure>":`, the bytes written before a point's value of that measure. */
const memberBytesCache = new Map<string, Uint8Array>();
function memberBytes(measure: string): Uint8Array {
  let bytes = memberBytesCache.get(measure);
  if (!bytes) memberBytesCache.set(measure, (bytes = asciiBytes(`,${asciiJson(measure)}:`)));
  return bytes;
}

function columnsText(series: ColumnSeries): string {
  const columns: Record<string, number[]> = { day: Array.from(series.day) };
  for (const [measure, values] of Object.entries(series.values)) columns[measure] = Array.from(values);
  return JSON.stringify(columns);
}

interface MetricsContext {
  pixelId: string;
  rates: RateCache;
}

async function applyFilter(context: MetricsContext, ads: readonly Ad[], filter: Filter, request: QueryAdsRequest): Promise<Ad[]> {
  const attribute = (ad: Ad, field: string) => AD_ATTRIBUTE_FIELDS[field]?.(ad);
  if (!filterUsesMetrics(filter)) return ads.filter((ad) => evaluateFilter(filter, (field) => attribute(ad, field)));

  // Conditions of a top-level `and` that read attributes only can narrow the set before any
  // metrics are loaded; the full filter is still evaluated on what remains.
  const attributeOnly = 'and' in filter ? filter.and.filter((child) => !filterUsesMetrics(child)) : [];
  const candidates = attributeOnly.length > 0 ? ads.filter((ad) => evaluateFilter({ and: attributeOnly }, (field) => attribute(ad, field))) : [...ads];
  const calendar = calendarOf(request.primaryRange as InstantRange, request.timezone);
  const cells = await readAdCells(context.pixelId, candidates, calendar);
  const measureIds = metricFieldsOf(filter) as AdMeasureId[];
  return candidates.filter((ad) => {
    const totals = totalsFromCells({
      cells: cells.get(adKeyString(ad)) ?? new Float64Array(0),
      measures: measureIds,
      platform: ad.platform,
      currency: ad.currency,
      rates: context.rates,
    });
    return evaluateFilter(filter, (field) => attribute(ad, field) ?? totals[field]);
  });
}

interface AdSeries {
  primary: ColumnSeries;
  compare?: ColumnSeries;
}

interface PageSeries {
  primaryCalendar: RangeCalendar;
  compareCalendar: RangeCalendar | undefined;
  byAd: AdSeries[];
}

async function buildSeries(context: MetricsContext, page: readonly Ad[], request: QueryAdsRequest): Promise<PageSeries | undefined> {
  const { measures, primaryRange, compareRange } = request;
  if (measures.length === 0 || !primaryRange) return undefined;
  const primaryCalendar = calendarOf(primaryRange, request.timezone);
  const compareCalendar = compareRange ? calendarOf(compareRange, request.timezone) : undefined;
  // Each range is read on its own: a comparison a year earlier never reads the days between.
  const [primaryCells, compareCells] = await Promise.all([
    readAdCells(context.pixelId, page, primaryCalendar),
    compareCalendar ? readAdCells(context.pixelId, page, compareCalendar) : undefined,
  ]);
  const byAd = page.map((ad): AdSeries => {
    const key = adKeyString(ad);
    const series = (cells: Map<string, Float64Array>) =>
      seriesFromCells({ cells: cells.get(key) ?? new Float64Array(0), measures, platform: ad.platform, currency: ad.currency, rates: context.rates });
    const primary = series(primaryCells);
    const compare = compareCells ? series(compareCells) : undefined;
    // Without a rate for some day the money measures of this ad cannot be stated honestly, so
    // they are left out of its data rather than reported from a partial sum.
    if (!primary.convertible || (compare && !compare.convertible)) {
      for (const measure of measures) {
        if (!needsConversion(measure)) continue;
        delete primary.values[measure];
        if (compare) delete compare.values[measure];
      }
    }
    return { primary, ...(compare ? { compare } : {}) };
  });
  return { primaryCalendar, compareCalendar, byAd };
}

function calendarColumns(calendar: RangeCalendar): CalendarColumns {
  return { dt: calendar.days.map((day) => day.date), start: calendar.days.map((day) => day.startLabel), end: calendar.days.map((day) => day.endLabel) };
}

const SORT_KEYS = {
  sourceUpdatedAt: (ad: Ad) => ad.updatedAt,
  sourceCreatedAt: (ad: Ad) => ad.createdAt,
  resourceName: (ad: Ad) => ad.adName,
} as const;

/**
 * `readAds` returns the same frozen list until an import changes the ads table's files, so its
 * sorted orders can be kept with it: they are dropped with the list, never stale.
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

