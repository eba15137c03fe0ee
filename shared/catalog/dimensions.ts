/**
 * The dimensions of POST /db-mgmt/api/query: how a measure's figures can be split. Listed by
 * GET /db-mgmt/api/measures next to the measures. A measure is split only by dimensions of its own
 * family (`orders.*` by orders dimensions, `events.*` by events dimensions, `channel.*` and
 * `<platform>.*` by channel dimensions); `core.*` measures by none. A missing value groups under null.
 */
export const DIMENSION_FAMILIES = ['orders', 'events', 'channel'] as const;
export type DimensionFamily = (typeof DIMENSION_FAMILIES)[number];

export interface DimensionCatalogEntry {
  id: string;
  family: DimensionFamily;
  title: string;
  description: string;
  /** The complete set of values, where it is closed. */
  values?: readonly string[];
  /**
   * How many values a pixel typically has (the `null` group included): what a query's price
   * counts for a split by this dimension before any data is read (analytics/request-cost.ts).
   */
  expectedValues: number;
}

export const CUSTOMER_TYPES = ['new', 'returning'] as const;

export const DIMENSIONS: readonly DimensionCatalogEntry[] = [
  { id: 'orders.source_name', family: 'orders', title: 'Sales channel', description: 'The order\u2019s sourceName (e.g. web, pos); refunds are split by their order\u2019s.' , expectedValues: 10 },
  { id: 'orders.payment_gateway', family: 'orders', title: 'Payment gateway', description: 'The order\u2019s paymentGateway (e.g. stripe).' , expectedValues: 10 },
  {
    id: 'orders.customer_type',
    family: 'orders',
    title: 'Customer type',
    description: 'new for a customer\u2019s first counted order (over all stored history), returning for the others.',
    values: CUSTOMER_TYPES,
    expectedValues: 3,
  },
  { id: 'orders.currency', family: 'orders', title: 'Order currency', description: 'The currency the order was placed in (amounts are still converted to the requested currency).' , expectedValues: 10 },
  { id: 'orders.tag', family: 'orders', title: 'Order tag', description: 'Each tag of the order: an order with several tags is counted under each of them, one without tags under null.' , expectedValues: 50 },
  { id: 'events.name', family: 'events', title: 'Event name', description: 'The event\u2019s name (page_view, purchase, custom names...).' , expectedValues: 20 },
  { id: 'events.utm_source', family: 'events', title: 'UTM source', description: 'utm_source of the event\u2019s page URL.' , expectedValues: 30 },
  { id: 'events.utm_medium', family: 'events', title: 'UTM medium', description: 'utm_medium of the event\u2019s page URL.' , expectedValues: 15 },
  { id: 'events.utm_campaign', family: 'events', title: 'UTM campaign', description: 'utm_campaign of the event\u2019s page URL.' , expectedValues: 50 },
  { id: 'channel.resource_source', family: 'channel', title: 'Ad platform', description: 'metaIntegration, googleIntegration or tiktokIntegration.' , expectedValues: 3 },
  { id: 'channel.account_id', family: 'channel', title: 'Ad account id', description: 'The platform\u2019s id of the ad account.' , expectedValues: 10 },
  { id: 'channel.campaign_id', family: 'channel', title: 'Campaign id', description: 'The platform\u2019s id of the campaign.' , expectedValues: 50 },
  { id: 'channel.adset_id', family: 'channel', title: 'Ad set id', description: 'The platform\u2019s id of the ad set.' , expectedValues: 100 },
  { id: 'channel.ad_id', family: 'channel', title: 'Ad id', description: 'The platform\u2019s id of the ad.' , expectedValues: 200 },
];

const BY_ID: ReadonlyMap<string, DimensionCatalogEntry> = new Map(DIMENSIONS.map((entry) => [entry.id, entry]));

export function findDimension(id: string): DimensionCatalogEntry | undefined {
  return BY_ID.get(id);
}

/** The family a measure belongs to for splitting and filtering; `core` for blended measures. */
export function measureFamily(measureId: string): DimensionFamily | 'core' {
  const namespace = measureId.split('.')[0]!;
  if (namespace === 'orders' || namespace === 'events' || namespace === 'core') return namespace;
  return 'channel';
}
