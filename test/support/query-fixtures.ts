import { FxTable } from '../../shared/ads/fx-table';
import { CostBook } from '../../shared/costs/order-costs';
import type { CostSettings, SkuCost } from '../../shared/schemas/cost-settings';
import type { QueryEvent, QueryOrder } from '../../shared/analytics/query-data';
import { runQuery, type QuerySource } from '../../shared/analytics/query-service';
import type { Ad } from '../../shared/schemas/ad-import';
import type { FxRatesEntry } from '../../shared/schemas/ad-import';
import { queryRequestSchema } from '../../shared/schemas/query-measures';
import type { HourlyMetrics } from '../../shared/analytics/store/ad-facts';

/** A hand-built pixel for the query engine: facts as the read models hold them. */
export interface MemoryPixel {
  orders: QueryOrder[];
  events: QueryEvent[];
  ads: Array<{ ad: Ad; hours: HourlyMetrics[] }>;
  fx: FxRatesEntry[];
  /** Cost settings and SKU costs (issue P9); none by default. */
  costSettings?: CostSettings;
  skuCosts?: SkuCost[];
}

export function memorySource(pixel: MemoryPixel): QuerySource {
  const inRange = (at: number, range: { start: number; end: number }) => at >= range.start && at < range.end;
  return {
    fxTable: async () => new FxTable(pixel.fx),
    ads: async () => pixel.ads.map(({ ad }) => ad),
    adHours: async (_pixelId, ads, range) =>
      new Map(
        pixel.ads
          .filter(({ ad }) => ads.includes(ad))
          .map(({ ad, hours }) => [`${ad.platform}#${ad.adId}`, hours.filter((hour) => inRange(hour.hour, range))]),
      ),
    orderFacts: async (_pixelId, range, options) => ({
      placed: pixel.orders.filter((order) => inRange(Date.parse(order.orderDate), range)),
      refunded: options.refunded ? pixel.orders.filter((order) => order.refunds.some((refund) => inRange(Date.parse(refund.processedAt), range))) : [],
    }),
    // Every stored order: a superset of the met customers' histories changes no customer's first order.
    customerHistory: async () => pixel.orders,
    events: async (_pixelId, range) => pixel.events.filter((event) => inRange(event.at, range)),
    // Hand-built events stand for themselves; the rollup path is tested against the store.
    eventCounts: async (_pixelId, range) => pixel.events.filter((event) => inRange(event.at, range)),
    costs: async () => new CostBook(pixel.costSettings, pixel.skuCosts),
  };
}

export async function query(pixel: MemoryPixel, body: Record<string, unknown>) {
  const request = queryRequestSchema.parse({ pixelId: 'px_t', ...body });
  return (await runQuery('px_t', request, memorySource(pixel))).results[0]!;
}

export function order(orderId: string, orderDate: string, fields: Partial<QueryOrder> = {}): QueryOrder {
  return {
    orderId,
    orderDate: new Date(orderDate).toISOString(),
    value: 0,
    currency: 'USD',
    sourceName: 'web',
    tags: [],
    paymentGateway: 'stripe',
    financialStatus: 'paid',
    refunds: [],
    customer: { userIds: [], emailHashes: [], phoneHashes: [] },
    ...fields,
  };
}

export function event(eventId: string, at: string, name: string, identities: string[] = [], utm: [string?, string?, string?] = []): QueryEvent {
  return { eventId, at: Date.parse(at), name, utmSource: utm[0] ?? null, utmMedium: utm[1] ?? null, utmCampaign: utm[2] ?? null, identities };
}

export function ad(platform: Ad['platform'], adId: string, currency: string, fields: Partial<Ad> = {}): Ad {
  return {
    platform,
    accountId: `${platform}-acc`,
    accountName: 'Account',
    campaignId: `${platform}-c1`,
    campaignName: 'Campaign',
    adsetId: `${platform}-s1`,
    adsetName: 'Ad set',
    adId,
    adName: `Ad ${adId}`,
    status: 'ACTIVE',
    configuredStatus: 'ACTIVE',
    effectiveStatus: 'ACTIVE',
    currency,
    dailyBudget: null,
    budgetRemaining: null,
    amountSpent: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...fields,
  } as Ad;
}

export function hour(at: string, spend: number, impressions: number, clicks: number): HourlyMetrics {
  return { hour: Date.parse(at), spend, impressions, clicks, conversions: 0, conversionValue: 0 };
}

/** A cohort analysis over a hand-built pixel, at a fixed `now`. */
export async function cohortQuery(pixel: MemoryPixel, body: Record<string, unknown>, now: string) {
  const { queryCohortRequestSchema } = await import('../../shared/schemas/query-cohort');
  const { runCohortAnalysis } = await import('../../shared/analytics/cohort-service');
  const request = queryCohortRequestSchema.parse({ pixelId: 'px_t', ...body });
  return (await runCohortAnalysis('px_t', request, memorySource(pixel), Date.parse(now))).results[0]!;
}
