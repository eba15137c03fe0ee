import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod';
import { toApiGatewayEvent } from '../../lib/local/api-gateway-event';
import type { RouteDefinition, RouteId } from '../../lib/routes';
import { PRICE_CAPS, priceQuery, type RequestPrice } from '../../shared/analytics/request-cost';
import { FILTER_CONTEXTS } from '../../shared/catalog/filter-fields';
import { MEASURE_CONTEXTS } from '../../shared/catalog/measures';
import { isStorableNumber } from '../../shared/http/readable-document';
import { queryRequestSchema } from '../../shared/schemas/query-measures';
import { EVENT_PROBLEM_CODES, EVENTS_ERROR_CODES } from '../../shared/tracking/ingest-errors';
import { validConfigurationDocument } from './dashboard-view-fixtures';
import { validEventArbitrary } from './event-fixtures';
import { validSettingsDocument, validName } from './order-settings-fixtures';

/*
 * What the fuzz suite sends: a valid request per route, and the ways to break one. The map of
 * valid requests is typed by the route table, so a route added to lib/routes.ts without an entry
 * here fails the typecheck, and the suite iterates the table itself, so the entry is all a new
 * route needs to be fuzzed.
 */

/** The parts of a request a route reads; headers are added by the harness. */
export interface RequestParts {
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  /** A JSON value, serialised by the harness; absent for routes without a body. */
  body?: unknown;
}

/** What a request may refer to: the pixel the key is for, and a view that exists. */
export interface FuzzContext {
  pixelId: string;
  viewId: string;
}

export interface RouteFuzzEntry {
  /** The documented error body of the route: the standard one, or the events API's envelope (README). */
  envelope: 'standard' | 'events';
  valid: (context: FuzzContext) => fc.Arbitrary<RequestParts>;
}

const dayText = (days: number) => new Date(Date.UTC(2025, 0, 1 + days)).toISOString().slice(0, 10);
/** A range of 1 to 91 days: within every route's bound on a range's span. */
const withinPriceCaps = (price: RequestPrice) => price.values <= PRICE_CAPS.values && price.eventDays <= PRICE_CAPS.eventDays;
const orderedDays = fc.tuple(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 0, max: 90 })).map(([from, length]) => ({ start: dayText(from), end: dayText(from + length) }));
const AD_MEASURES = ['channel.spend', 'channel.ctr', 'channel.roas', 'meta.spend', 'google.clicks'] as const;
const viewPath = (context: FuzzContext) => ({ dashboardViewId: context.viewId });
const catalogQuery = (contexts: readonly string[]) =>
  fc.record({ context: fc.constantFrom(...contexts), search: fc.stringMatching(/^[a-z ]{0,20}$/) }, { requiredKeys: [] });
const eventWithoutTimestamp = validEventArbitrary.map(({ timestamp: _timestamp, ...event }) => event);

/**
 * The fixtures draw doubles from the whole float64 range; the API takes only what the store can
 * hold (README, "Strict input"), so a number outside it becomes 0 in a request meant to be valid.
 */
export function withStorableNumbers<T>(value: T): T {
  if (typeof value === 'number') return (isStorableNumber(value) ? value : 0) as T;
  if (Array.isArray(value)) return value.map(withStorableNumbers) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, withStorableNumbers(child)])) as T;
  }
  return value;
}

export const ROUTE_FUZZ: Record<RouteId, RouteFuzzEntry> = {
  getAccount: { envelope: 'standard', valid: () => fc.constant({}) },
  updateAccount: {
    envelope: 'standard',
    valid: () =>
      fc
        .record(
          { name: validName, timezone: fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata'), currency: fc.constantFrom('USD', 'EUR', 'GBP') },
          { requiredKeys: [] },
        )
        .filter((body) => Object.keys(body).length > 0)
        .map((body) => ({ body })),
  },
  getOrderSettings: { envelope: 'standard', valid: () => fc.constant({}) },
  putOrderSettings: { envelope: 'standard', valid: () => validSettingsDocument.map((body) => ({ body })) },
  getCostSettings: { envelope: 'standard', valid: () => fc.constant({}) },
  putCostSettings: {
    envelope: 'standard',
    valid: () =>
      fc
        .record({
          defaultCogsPercent: fc.double({ min: 0, max: 100, noNaN: true }),
          handlingFeePerItem: fc.double({ min: 0, max: 1000, noNaN: true }),
          defaultShippingCostPerOrder: fc.double({ min: 0, max: 1000, noNaN: true }),
          gatewayFees: fc.uniqueArray(
            fc.record({ gateway: fc.stringMatching(/^[a-z][a-z0-9_]{0,15}$/), percent: fc.double({ min: 0, max: 100, noNaN: true }), fixed: fc.double({ min: 0, max: 10, noNaN: true }) }),
            { maxLength: 5, selector: (fee) => fee.gateway },
          ),
          currency: fc.constantFrom('USD', 'EUR', 'GBP'),
        })
        .map((body) => ({ body: withStorableNumbers(body) })),
  },
  listDashboardViews: {
    envelope: 'standard',
    valid: () => fc.record({ query: fc.record({ type: fc.constantFrom('view', 'attribution_view', 'pnl_view') }, { requiredKeys: [] }) }),
  },
  getDashboardView: { envelope: 'standard', valid: (context) => fc.constant({ pathParameters: viewPath(context) }) },
  createDashboardView: {
    envelope: 'standard',
    valid: () =>
      fc
        .record({ name: validName, configuration: validConfigurationDocument, type: fc.constantFrom('view', 'pnl_view') }, { requiredKeys: ['name', 'configuration'] })
        .map((body) => ({ body })),
  },
  updateDashboardView: {
    envelope: 'standard',
    valid: (context) =>
      fc
        .record({ name: validName, order: fc.integer({ min: -1000, max: 1000 }), configuration: validConfigurationDocument }, { requiredKeys: [] })
        .filter((body) => Object.keys(body).length > 0)
        .map((body) => ({ pathParameters: viewPath(context), body })),
  },
  copyDashboardView: {
    envelope: 'standard',
    valid: (context) => fc.record({ name: validName }, { requiredKeys: [] }).map((body) => ({ pathParameters: viewPath(context), body })),
  },
  createDashboardViewFromPreset: {
    envelope: 'standard',
    valid: () =>
      fc
        .record(
          {
            name: validName,
            widgets: fc.array(fc.record({ measure: fc.constantFrom(...AD_MEASURES), title: validName }, { requiredKeys: ['measure'] }), { minLength: 1, maxLength: 6 }),
            dateRange: orderedDays,
            granularity: fc.constantFrom('day', 'week', 'month'),
          },
          { requiredKeys: ['name', 'widgets'] },
        )
        .map((body) => ({ body })),
  },
  deleteDashboardView: { envelope: 'standard', valid: (context) => fc.constant({ pathParameters: viewPath(context) }) },
  getApiKeyMe: { envelope: 'standard', valid: () => fc.constant({}) },
  getMeasures: { envelope: 'standard', valid: () => fc.record({ query: catalogQuery(MEASURE_CONTEXTS) }) },
  getFilters: { envelope: 'standard', valid: () => fc.record({ query: catalogQuery(FILTER_CONTEXTS) }) },
  query: {
    envelope: 'standard',
    valid: (context) =>
      fc
        .record(
          {
            measures: fc.subarray(['orders.orders', 'orders.net_revenue', 'orders.new_customers', 'orders.cm2', 'events.page_views', 'events.visitors', 'channel.spend', 'core.roas'], { minLength: 1 }),
            granularity: fc.constantFrom('none', 'day', 'week', 'month'),
            dateRange: orderedDays,
            timezone: fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata'),
            currency: fc.constantFrom('USD', 'EUR', 'GBP'),
            orderSettings: fc.record({ countPendingOrders: fc.boolean(), refundDateAttribution: fc.constantFrom('refund_date', 'order_date') }, { requiredKeys: [] }),
          },
          { requiredKeys: ['measures', 'dateRange'] },
        )
        .map((body) => ({ pixelId: context.pixelId, ...body }))
        // Valid means accepted: within the price caps too (a long range of people measures is not).
        .filter((body) => withinPriceCaps(priceQuery(queryRequestSchema.parse(body))))
        .map((body) => ({ body })),
  },
  queryCohortAnalysis: {
    envelope: 'standard',
    valid: (context) =>
      fc
        .record(
          {
            measures: fc.subarray(['orders.customers_cohort', 'orders.ltv_cohort_net_revenue', 'orders.cohort_retention_percent', 'orders.cohort_cm2'], { minLength: 1 }),
            granularity: fc.constantFrom('week', 'month', 'year'),
            dateRange: orderedDays,
            periods: fc.integer({ min: 0, max: 10 }),
            timezone: fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York'),
            currency: fc.constantFrom('USD', 'EUR'),
            orderSettings: fc.record({ countPendingOrders: fc.boolean(), refundDateAttribution: fc.constantFrom('refund_date', 'order_date', 'original_order_date') }, { requiredKeys: [] }),
          },
          { requiredKeys: ['measures', 'granularity', 'dateRange'] },
        )
        .map((body) => ({ body: { pixelId: context.pixelId, ...body } })),
  },
  queryAds: {
    envelope: 'standard',
    valid: (context) =>
      fc
        .record(
          {
            measures: fc.subarray([...AD_MEASURES], { minLength: 1 }),
            dateRange: orderedDays,
            timezone: fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata'),
            currency: fc.constantFrom('USD', 'EUR', 'GBP'),
            limit: fc.integer({ min: 1, max: 500 }),
            offset: fc.nat(100),
            sortBy: fc.constantFrom('sourceUpdatedAt', 'sourceCreatedAt', 'resourceName'),
            sortDirection: fc.constantFrom('asc', 'desc'),
            format: fc.constantFrom('rows', 'columnar'),
          },
          { requiredKeys: ['measures', 'dateRange'] },
        )
        .map((body) => ({ body: { pixelId: context.pixelId, ...body } })),
  },
  queryAttribution: {
    envelope: 'standard',
    valid: (context) =>
      fc
        .record(
          {
            dateRange: orderedDays,
            timezone: fc.constantFrom('UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata'),
            currency: fc.constantFrom('USD', 'EUR', 'GBP'),
            granularity: fc.constantFrom('none', 'day', 'week', 'month'),
            dimension: fc.constantFrom('source', 'channel.campaign_id', 'channel.ad_id'),
            attributionModel: fc.oneof(
              fc.constantFrom('first_click', 'last_click', 'any_click', 'linear', 'time_decay', 'position_based'),
              fc.subarray(['first_click', 'last_click', 'any_click', 'linear', 'time_decay', 'position_based'], { minLength: 1 }),
            ),
            attributionWindow: fc.constantFrom(1, 7, 14, 28, 30, 60, 90),
            measures: fc.subarray(['attribution.orders', 'attribution.revenue', 'attribution.new_customer_orders', 'channel.spend', 'attribution.roas', 'attribution.cpa'], { minLength: 1 }),
            orderSettings: fc.record({ countPendingOrders: fc.boolean(), refundDateAttribution: fc.constantFrom('refund_date', 'order_date') }, { requiredKeys: [] }),
          },
          { requiredKeys: ['dateRange'] },
        )
        .map((body) => ({ body: { pixelId: context.pixelId, ...body } })),
  },
  ingestEvents: {
    envelope: 'events',
    valid: () =>
      fc.oneof(
        eventWithoutTimestamp.map((body) => ({ body })),
        fc.array(eventWithoutTimestamp, { minLength: 1, maxLength: 5 }).map((events) => ({ body: { events } })),
      ),
  },
};

/* ---------------------------------------------------------------------------------------------
 * Hostile values. Some cannot be written as a JSON value in JavaScript (a number beyond float64,
 * nesting 10,000 deep), so they travel as markers that the harness swaps into the body's text.
 */

const MARKER = (name: string) => `@@fuzz:${name}@@`;
const RAW_REPLACEMENTS: Record<string, string> = {
  [MARKER('huge')]: '1e400',
  [MARKER('negative-huge')]: '-1e400',
  [MARKER('long-integer')]: '123456789012345678901234567890123456789',
  [MARKER('tiny')]: '1e-400',
  [MARKER('deep-arrays')]: '['.repeat(10_000) + ']'.repeat(10_000),
  [MARKER('deep-objects')]: '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000),
};

/** The body as text, markers replaced by their raw JSON. */
export function bodyText(body: unknown): string {
  let text = JSON.stringify(body);
  for (const [marker, raw] of Object.entries(RAW_REPLACEMENTS)) text = text.split(JSON.stringify(marker)).join(raw);
  return text;
}

export const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

const loneSurrogate = fc.constantFrom('\ud800', 'a\udfffb', '\udc00\ud800', 'x'.repeat(10) + '\ud83d');
const controlString = fc.string({ unit: fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)), minLength: 1, maxLength: 20 });
const weirdString = fc.oneof(
  loneSurrogate,
  controlString,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', ' ', '\u200b', '\u202e', '\ufeff', 'null', 'true', '0', '-1', '1e309', 'NaN', '2026-02-30', '2026-11-01T00:00:00+25:00', '9999-12-31', '1000-01-01T00:00', 'Mars/Phobos', 'UTC+1', 'Pacific/Kiritimati', 'x'.repeat(100_000)),
);
const weirdNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 1.5, Number.MAX_SAFE_INTEGER + 2, -Number.MAX_VALUE, Number.MIN_VALUE, 1e21, 2 ** 53, 1e-131, -1e-200, 1e126, 1e300),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
const rawMarker = fc.constantFrom(...Object.keys(RAW_REPLACEMENTS));

/** A value to put where a valid one was. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 3, arbitrary: weirdString },
  { weight: 2, arbitrary: weirdNumber },
  { weight: 2, arbitrary: rawMarker },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}, [[]], [{}], { '': '' }) },
  { weight: 1, arbitrary: fc.array(weirdString, { maxLength: 3 }) },
);

/** Every place in a document, with its path: objects and arrays (where members go) and leaves. */
export function nodesOf(value: unknown, path: string[] = []): Array<{ value: unknown; path: string[] }> {
  const here = { value, path };
  if (Array.isArray(value)) return [here, ...value.flatMap((item, i) => nodesOf(item, [...path, String(i)]))];
  if (value !== null && typeof value === 'object') return [here, ...Object.entries(value).flatMap(([key, child]) => nodesOf(child, [...path, key]))];
  return [here];
}

const clone = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

function parentOf(document: unknown, path: readonly string[]): Record<string, unknown> | unknown[] | undefined {
  let node: unknown = document;
  for (const segment of path.slice(0, -1)) node = (node as Record<string, unknown>)[segment];
  return node !== null && typeof node === 'object' ? (node as Record<string, unknown>) : undefined;
}

/** Sets a member with define semantics, so `__proto__` becomes an own key as JSON.parse would make it. */
function defineMember(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
}

export type Mutation =
  | { kind: 'replace'; at: number; value: unknown }
  | { kind: 'delete'; at: number }
  | { kind: 'add-member'; at: number; key: string; value: unknown };

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), value: hostileValue }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('add-member' as const), at: fc.nat(), key: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('pixelId', 'id', 'events', 'data')), value: hostileValue }),
);

/** A copy of `body` with the mutations applied, each at a node chosen by index among the current ones. */
export function mutate(body: unknown, mutations: readonly Mutation[]): unknown {
  let document = clone(body);
  for (const change of mutations) {
    const nodes = nodesOf(document);
    const node = nodes[change.at % nodes.length]!;
    // A fresh copy each time: one generated value inserted twice must not become a cycle.
    const value = clone(change.kind === 'delete' ? undefined : change.value);
    if (change.kind === 'replace') {
      if (node.path.length === 0) document = value;
      else defineMember(parentOf(document, node.path)!, node.path.at(-1)!, value);
    } else if (change.kind === 'delete') {
      const parent = node.path.length > 0 ? parentOf(document, node.path) : undefined;
      if (Array.isArray(parent)) parent.splice(Number(node.path.at(-1)), 1);
      else if (parent) delete parent[node.path.at(-1)!];
    } else if (node.value !== null && typeof node.value === 'object' && !Array.isArray(node.value)) {
      defineMember(node.value, change.key, value);
    }
  }
  return document;
}

/** A copy of `body` with a hostile key slipped into one of its objects; returns where it is. */
export function withHostileKey(body: unknown, at: number, key: string, value: unknown): { body: unknown; path: string[] } {
  const document = clone(body);
  const objects = nodesOf(document).filter((node) => node.value !== null && typeof node.value === 'object' && !Array.isArray(node.value));
  const target = objects[at % objects.length]!;
  defineMember(target.value as object, key, clone(value));
  return { body: document, path: [...target.path, key] };
}

/* ---------------------------------------------------------------------------------------------
 * Requests, built by the code the local server uses (lib/local/api-gateway-event.ts).
 */

export interface FuzzRequest {
  parts: RequestParts;
  headers: Record<string, string>;
  /** Raw body text; defaults to the parts' body serialised. */
  rawBody?: string;
  /** Raw query string; defaults to the parts' query encoded. */
  rawQuery?: string;
  /** Overrides applied to the finished event (a body claimed base64 that is not, say). */
  tamper?: (event: APIGatewayProxyEventV2) => void;
}

function encodePathSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return value; // a lone surrogate cannot be percent-encoded; API Gateway would see the raw text
  }
}

export function buildEvent(route: RouteDefinition, request: FuzzRequest): APIGatewayProxyEventV2 {
  const pathParameters = request.parts.pathParameters ?? {};
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodePathSegment(pathParameters[name] ?? ''));
  const query = request.rawQuery ?? new URLSearchParams(request.parts.query ?? {}).toString();
  const text = request.rawBody ?? (request.parts.body === undefined ? '' : bodyText(request.parts.body));
  const event = toApiGatewayEvent(
    {
      method: route.method,
      url: query ? `${path}?${query}` : path,
      rawHeaders: Object.entries(request.headers).flat(),
      body: Buffer.from(text, 'utf8'),
      sourceIp: '127.0.0.1',
      protocol: 'HTTP/1.1',
    },
    { method: route.method, path: route.path, pathParameters },
    { requestId: randomUUID(), now: new Date(), domainName: 'fuzz.local' },
  );
  request.tamper?.(event);
  return event;
}

/* ---------------------------------------------------------------------------------------------
 * The documented error bodies (README, "Errors" and the events API's envelope).
 */

const issue = z
  .strictObject({ message: z.string().min(1), key: z.string(), path: z.array(z.string()) })
  .refine((item) => item.key === (item.path.at(-1) ?? ''), 'key is the last segment of path');

const standardError = z.strictObject({ message: z.string().min(1) });
const validationError = z.strictObject({ message: z.string().min(1), errors: z.array(issue).min(1) });

const eventsError = z.strictObject({
  message: z.string().min(1),
  requestId: z.string().min(1),
  error: z.strictObject({
    code: z.enum(Object.keys(EVENTS_ERROR_CODES) as [keyof typeof EVENTS_ERROR_CODES]),
    details: z.array(
      z.strictObject({ index: z.int().min(0).nullable(), path: z.array(z.string()), code: z.enum(EVENT_PROBLEM_CODES), message: z.string().min(1) }),
    ),
  }),
});

/** Problems with a 4xx response's body, as a list of strings (empty when it is as documented). */
export function errorBodyProblems(envelope: RouteFuzzEntry['envelope'], status: number, body: unknown): string[] {
  if (envelope === 'events') {
    const parsed = eventsError.safeParse(body);
    if (!parsed.success) return [z.prettifyError(parsed.error)];
    const expected = EVENTS_ERROR_CODES[parsed.data.error.code];
    return expected === status ? [] : [`error.code ${parsed.data.error.code} is documented as ${expected}, answered ${status}`];
  }
  const parsed = (status === 400 ? validationError : standardError).safeParse(body);
  return parsed.success ? [] : [z.prettifyError(parsed.error)];
}

/** The paths a 400 names, in either envelope. */
export function reportedPaths(envelope: RouteFuzzEntry['envelope'], body: any): string[][] {
  if (envelope === 'events') return (body?.error?.details ?? []).map((detail: { path: string[] }) => detail.path);
  return (body?.errors ?? []).map((item: { path: string[] }) => item.path);
}
