import { FxTable } from '../../shared/ads/fx-table';
import type { QueryOrder } from '../../shared/analytics/query-data';
import { shapeAttribution } from '../../shared/attribution/attribution-engine';
import { runAttributionQuery, touchpointsByOrder, type AttributionSource } from '../../shared/attribution/attribution-service';
import type { Ad, FxRatesEntry } from '../../shared/schemas/ad-import';
import { queryAttributionRequestSchema } from '../../shared/schemas/query-attribution';
import type { HourlyMetrics } from '../../shared/analytics/store/ad-facts';
import { touchpointOf, writesOf, type JourneyGraph, type TouchpointEntry } from '../../shared/store/journey-repository';
import type { StoredEvent } from '../../shared/tracking/stored-event';
import { utmOf } from '../../shared/tracking/utm';

/** A hand-built pixel for the attribution engine: orders as P7's read models hold them, stored events, ads. */
export interface AttributionPixel {
  orders: QueryOrder[];
  events: StoredEvent[];
  ads?: Array<{ ad: Ad; hours: HourlyMetrics[] }>;
  fx?: FxRatesEntry[];
}

/** The journey items the projector would write for these events (same code), read back as a graph. */
export function graphOf(events: readonly StoredEvent[]): JourneyGraph {
  const links = new Map<string, string[]>();
  const touchpoints = new Map<string, ReturnType<typeof touchpointOf>[]>();
  for (const event of events) {
    for (const write of writesOf('01KENTRY', event)) {
      if (write.map === 'l') links.set(`${write.key}\u0000${write.identifier}`, [write.identifier, ...(JSON.parse(write.value) as string[])]);
      else {
        const list = touchpoints.get(write.identifier) ?? [];
        list.push(touchpointOf(write.key, JSON.parse(write.value) as TouchpointEntry));
        touchpoints.set(write.identifier, list);
      }
    }
  }
  return { links: [...links.values()], touchpoints };
}

export function memoryAttributionSource(pixel: AttributionPixel): AttributionSource {
  const inRange = (at: number, range: { start: number; end: number }) => at >= range.start && at < range.end;
  return {
    fxTable: async () => new FxTable(pixel.fx ?? []),
    ads: async () => (pixel.ads ?? []).map(({ ad }) => ad),
    adHours: async (_pixelId, ads, range) =>
      new Map((pixel.ads ?? []).filter(({ ad }) => ads.includes(ad)).map(({ ad, hours }) => [`${ad.platform}#${ad.adId}`, hours.filter((hour) => inRange(hour.hour, range))])),
    ordersPlaced: async (_pixelId, range) => pixel.orders.filter((order) => inRange(Date.parse(order.orderDate), range)),
    customerHistory: async () => pixel.orders,
    journeys: async () => (orders) => touchpointsByOrder(orders, graphOf(pixel.events)),
  };
}

export async function attribution(pixel: AttributionPixel, body: Record<string, unknown>) {
  const request = queryAttributionRequestSchema.parse({ pixelId: 'px_t', ...body });
  const { spec, primary, compare } = await runAttributionQuery('px_t', request, memoryAttributionSource(pixel));
  return shapeAttribution(spec, { dateRange: request.dateRange, compareDateRange: request.compareDateRange }, primary, compare).results;
}

let counter = 0;

/** A stored event landing on `url` (UTMs parsed as ingestion does), by the given user. */
export function visit(
  at: string,
  user: StoredEvent['user'],
  url = 'https://shop.example/',
  options: { referrer?: string; click?: StoredEvent['click']; data?: Record<string, unknown>; name?: string; eventId?: string } = {},
): StoredEvent {
  const utm = utmOf(url);
  const timestamp = new Date(at).toISOString();
  return {
    eventId: options.eventId ?? `ev-${++counter}`,
    eventIdSource: 'client',
    name: options.name ?? 'page_view',
    standard: true,
    timestamp,
    receivedAt: timestamp,
    ...(user ? { user } : {}),
    page: { url, ...(options.referrer ? { referrer: options.referrer } : {}) },
    ...(utm ? { utm } : {}),
    ...(options.click ? { click: options.click } : {}),
    ...(options.data ? { data: options.data } : {}),
  };
}
