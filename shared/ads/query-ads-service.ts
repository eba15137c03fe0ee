import type { AdMeasureId } from '../catalog/measures';
import { reportingTimeZone } from '../account/account-service';
import { evaluateFilter } from '../filters/evaluate-filter';
import { filterUsesMetrics, metricFieldsOf, type Filter } from '../filters/filter-schema';
import type { QueryAdsRequest } from '../schemas/query-ads';
import type { Ad } from '../schemas/ad-import';
import { adKeyString, loadAdDirectory, loadHourlyMetricsForAds, loadRollupsForAds, type AdDirectory, type RollupZone } from '../store/ad-repository';
import { loadFxTable } from '../store/fx-repository';
import type { InstantRange } from '../time/date-range';
import { AD_ATTRIBUTE_FIELDS, basicDetails } from './ad-details';
import {
  calendarOf,
  cellsFromHours,
  cellsFromRollup,
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
 * The ad listing (spec 4.2). The work is in proportion to the page: the ad directory is one
 * cached read, and metrics are read only for the ads on the page and only for the requested
 * ranges: as daily rollups when the range is whole days in UTC or in the pixel's reporting zone,
 * as hours otherwise (README, storage). The one exception is a filter on metrics, which needs
 * every candidate's totals over `dateRange`; attribute conditions are applied first to keep that
 * set small.
 */
export async function queryAds(pixelId: string, request: QueryAdsRequest) {
  const [directory, fx] = await Promise.all([loadAdDirectory(pixelId), loadFxTable(pixelId)]);
  const context: MetricsContext = {
    pixelId,
    directory,
    timeZone: request.timezone,
    rates: new RateCache((from) => (utcDate) => fx.convert(1, from, request.currency, utcDate)),
  };
  // Filtering keeps order, so the sorted directory (cached) is filtered rather than each result sorted.
  const ordered = sortedAds(directory.ads, request.sortBy, request.sortDirection);
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
  directory: AdDirectory;
  timeZone: string;
  rates: RateCache;
  /** Read once, and only when a zone other than UTC could use it. */
  reportingZone?: Promise<string>;
}

/** What choosing and reading cells needs of a request. */
type CellsContext = Pick<MetricsContext, 'pixelId' | 'directory' | 'timeZone' | 'reportingZone'>;

/**
 * Each ad's cells over a calendar in `timeZone`, keyed by `adKeyString`, chosen and read as the
 * listing reads them (rollups where they answer, else hours): what POST /db-mgmt/api/query sums
 * its channel measures from at day granularity and coarser.
 */
export function loadAdCells(pixelId: string, directory: AdDirectory, ads: readonly Ad[], calendar: RangeCalendar, timeZone: string): Promise<Map<string, Float64Array>> {
  return loadCells({ pixelId, directory, timeZone }, ads, calendar);
}

/**
 * Each ad's cells over a calendar. Daily rollups answer when the calendar is whole days and its
 * zone is UTC or the reporting zone; an ad whose zone rollup is stale (the reporting zone changed,
 * no rebuild yet) and every other request read the hours. Both give the same cells.
 */
async function loadCells(
  context: CellsContext,
  ads: readonly Ad[],
  calendar: RangeCalendar,
  /** Rollups already read for a span covering this calendar (the primary and compare ranges read together). */
  shared?: Promise<Rollups | undefined>,
): Promise<Map<string, Float64Array>> {
  const { range } = calendar;
  const zone = await rollupZoneFor(context, calendar);
  const cells = new Map<string, Float64Array>();
  let hourlyAds: readonly Ad[] = ads;
  if (zone) {
    const rollups = (await shared) ?? (await loadRollupsForAds(context.pixelId, ads, new Date(range.start), new Date(range.end), zone));
    for (const [key, rollup] of rollups.cells) cells.set(key, cellsFromRollup(rollup, calendar));
    hourlyAds = ads.filter((ad) => rollups.stale.has(adKeyString(ad)));
  }
  if (hourlyAds.length > 0) {
    const hours = await loadHourlyMetricsForAds(context.pixelId, hourlyAds, new Date(range.start), new Date(range.end));
    for (const [key, rows] of hours) cells.set(key, cellsFromHours(rows, calendar));
  }
  return cells;
}

async function rollupZoneFor(context: CellsContext, calendar: RangeCalendar): Promise<RollupZone | undefined> {
  if (!context.directory.rollups || !calendar.aligned) return undefined;
  if (context.timeZone === 'UTC') return { kind: 'utc' };
  context.reportingZone ??= reportingTimeZone(context.pixelId);
  return (await context.reportingZone) === context.timeZone ? { kind: 'zone', timeZone: context.timeZone } : undefined;
}

async function applyFilter(context: MetricsContext, ads: readonly Ad[], filter: Filter, request: QueryAdsRequest): Promise<Ad[]> {
  const attribute = (ad: Ad, field: string) => AD_ATTRIBUTE_FIELDS[field]?.(ad);
  if (!filterUsesMetrics(filter)) return ads.filter((ad) => evaluateFilter(filter, (field) => attribute(ad, field)));

  // Conditions of a top-level `and` that read attributes only can narrow the set before any
  // metrics are loaded; the full filter is still evaluated on what remains.
  const attributeOnly = 'and' in filter ? filter.and.filter((child) => !filterUsesMetrics(child)) : [];
  const candidates = attributeOnly.length > 0 ? ads.filter((ad) => evaluateFilter({ and: attributeOnly }, (field) => attribute(ad, field))) : [...ads];
  const calendar = calendarOf(request.primaryRange as InstantRange, request.timezone);
  const cells = await loadCells(context, candidates, calendar);
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
  // A comparison next to the primary range shares months with it (the preceding period ends in
  // the month the primary one starts in), so both are read at once when their rollups span no
  // month that neither needs; a comparison a year earlier is read on its own, never the months between.
  const shared = compareCalendar ? sharedRollups(context, page, primaryCalendar, compareCalendar) : undefined;
  const [primaryCells, compareCells] = await Promise.all([
    loadCells(context, page, primaryCalendar, shared),
    compareCalendar ? loadCells(context, page, compareCalendar, shared) : undefined,
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

type Rollups = Awaited<ReturnType<typeof loadRollupsForAds>>;

async function sharedRollups(context: MetricsContext, ads: readonly Ad[], a: RangeCalendar, b: RangeCalendar): Promise<Rollups | undefined> {
  const [zoneA, zoneB] = await Promise.all([rollupZoneFor(context, a), rollupZoneFor(context, b)]);
  if (!zoneA || !zoneB) return undefined;
  const monthsOf = (start: number, end: number) => Math.round((monthIndex(end - 1) - monthIndex(start)) + 1);
  const start = Math.min(a.range.start, b.range.start);
  const end = Math.max(a.range.end, b.range.end);
  const separate = new Set([...monthSpan(a.range.start, a.range.end), ...monthSpan(b.range.start, b.range.end)]).size;
  if (monthsOf(start, end) > separate) return undefined;
  return loadRollupsForAds(context.pixelId, ads, new Date(start), new Date(end), zoneA);
}

const monthIndex = (ms: number) => {
  const date = new Date(ms);
  return date.getUTCFullYear() * 12 + date.getUTCMonth();
};

function monthSpan(start: number, end: number): number[] {
  const months: number[] = [];
  for (let month = monthIndex(start); month <= monthIndex(end - 1); month++) months.push(month);
  return months;
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

