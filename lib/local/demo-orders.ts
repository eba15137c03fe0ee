import type { OrderImport } from '../../shared/orders/order';
import type { TrackingEventInput } from '../../shared/tracking/event-schema';
import { AD_PLATFORMS } from '../../shared/catalog/measures';
import { CAMPAIGNS, DEMO_ADS_PER_CAMPAIGN, demoAdIds, mix, prng } from './demo-ads';
import { demoItems } from './demo-costs';

/**
 * Deterministic demo orders and the pixel events around them, for the same made-up merchant as
 * the demo ads: every order has a purchase event at its time (with the landing page's UTM
 * parameters of a demo campaign, or none for organic visits), preceded by a page view, an add to
 * cart and a checkout of the same visitor; visits that do not buy add page views, carts and
 * abandoned checkouts. Refunds, pending and voided orders, several sources, gateways and
 * currencies, and returning customers are all present.
 *
 * Day `d` depends only on (seed, d, end): the same options give the same data, and a benchmark
 * can ask for a year at a larger volume, streamed day by day.
 */
export interface DemoOrdersOptions {
  /** Days of data, ending with the UTC day of `end` (no timestamp after `end`). */
  days: number;
  end: Date;
  seed: number;
  /** Average orders a day (weekends 20 % more). */
  ordersPerDay: number;
  /** Average visits a day that do not end in an order. */
  visitsPerDay: number;
  /** How many distinct shoppers orders are drawn from. */
  customers: number;
}

export const DEMO_ORDER_DEFAULTS = { days: 90, seed: 20_260_302, ordersPerDay: 14, visitsPerDay: 50, customers: 700 } as const;

export interface DemoDay {
  date: string;
  orders: OrderImport[];
  events: TrackingEventInput[];
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

const CURRENCIES = [['USD', 0.6], ['EUR', 0.2], ['GBP', 0.1], ['CAD', 0.1]] as const;
const SOURCES = [['web', 0.8], ['pos', 0.12], ['mobile_app', 0.08]] as const;
const GATEWAYS = [['stripe', 0.6], ['paypal', 0.25], ['shop_pay', 0.15]] as const;
const STATUSES = [['paid', 0.85], ['pending', 0.05], ['voided', 0.03], ['refunded', 0.03], ['partially_refunded', 0.04]] as const;
const UTM_SOURCES = { meta: ['facebook', 'paid_social'], google: ['google', 'cpc'], tiktok: ['tiktok', 'paid_social'] } as const;

const slug = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');

function weighted<T>(random: () => number, options: ReadonlyArray<readonly [T, number]>): T {
  let draw = random();
  for (const [value, weight] of options) {
    if ((draw -= weight) < 0) return value;
  }
  return options[options.length - 1]![0];
}

/**
 * The landing page of a visit: a demo campaign's ad 60 % of the time, with its UTM parameters and
 * the ad-id parameters of one of the campaign's ads (the URL template README documents), organic
 * otherwise. The ad within the campaign is drawn from `pick`, so the main draws stay as they were.
 */
function landingUrl(random: () => number, pick: () => number): string {
  if (random() < 0.4) return 'https://northwind.example/';
  return adLandingUrl(random, pick);
}

function adLandingUrl(random: () => number, pick: () => number): string {
  const platform = AD_PLATFORMS[Math.floor(random() * AD_PLATFORMS.length)]!;
  const campaigns = CAMPAIGNS[platform];
  const [source, medium] = UTM_SOURCES[platform];
  const campaignNumber = Math.floor(random() * campaigns.length);
  const campaign = slug(campaigns[campaignNumber]!);
  const ids = demoAdIds(platform, campaignNumber * DEMO_ADS_PER_CAMPAIGN + Math.floor(pick() * DEMO_ADS_PER_CAMPAIGN));
  return `https://northwind.example/collections/outerwear?utm_source=${source}&utm_medium=${medium}&utm_campaign=${campaign}&campaign_id=${ids.campaignId}&adset_id=${ids.adsetId}&ad_id=${ids.adId}`;
}

const SEARCH_REFERRERS = ['https://www.google.com/', 'https://www.bing.com/', 'https://duckduckgo.com/'] as const;
const EMAIL_CAMPAIGNS = ['weekly_digest', 'back_in_stock', 'spring_launch'] as const;

/**
 * The visits of a buyer's browser in the days before an order (attribution's journeys): 1 to 3 of
 * an ad click, an organic search, an email click and a direct visit, each 6 hours to 20 days earlier.
 * They carry the browser's anonymous id only, so the query's visitor counts are unchanged.
 */
function earlierVisits(journey: () => number, placed: number, anonymousId: string, now: number): TrackingEventInput[] {
  const count = 1 + Math.floor(journey() * 3);
  const visits: TrackingEventInput[] = [];
  for (let v = 0; v < count; v++) {
    const at = placed - Math.floor((0.25 + journey() * 19.75) * DAY_MS);
    if (at > now) continue;
    const kind = journey();
    const user = { anonymousId };
    const timestamp = new Date(at).toISOString();
    if (kind < 0.45) visits.push({ name: 'page_view', timestamp, user, page: { url: adLandingUrl(journey, journey) } });
    else if (kind < 0.65) visits.push({ name: 'page_view', timestamp, user, page: { url: 'https://northwind.example/products/rain-jacket', referrer: SEARCH_REFERRERS[Math.floor(journey() * SEARCH_REFERRERS.length)]! } });
    else if (kind < 0.85) {
      const campaign = EMAIL_CAMPAIGNS[Math.floor(journey() * EMAIL_CAMPAIGNS.length)]!;
      visits.push({ name: 'page_view', timestamp, user, page: { url: `https://northwind.example/?utm_source=klaviyo&utm_medium=email&utm_campaign=${campaign}` } });
    } else visits.push({ name: 'page_view', timestamp, user, page: { url: 'https://northwind.example/' } });
  }
  return visits;
}

export function* generateDemoDays(options: DemoOrdersOptions): Generator<DemoDay> {
  const lastDay = Math.floor(options.end.getTime() / DAY_MS) * DAY_MS;
  for (let d = options.days - 1; d >= 0; d--) {
    const dayStart = lastDay - d * DAY_MS;
    yield demoDay(options, dayStart, Math.round(dayStart / DAY_MS));
  }
}

function demoDay(options: DemoOrdersOptions, dayStart: number, dayNumber: number): DemoDay {
  const random = prng(mix(options.seed, dayNumber));
  // Items and shipping draw from a stream of their own: the orders' other fields stay as they were.
  const costRandom = prng(mix(options.seed + 1, dayNumber));
  // Journeys draw from their own stream, so adding them left every order and event above as it was.
  const journey = prng(mix(options.seed ^ 0x4a0b_11e7, dayNumber));
  const now = options.end.getTime();
  const date = new Date(dayStart).toISOString().slice(0, 10);
  const weekday = new Date(dayStart).getUTCDay();
  const weekend = weekday === 0 || weekday === 6 ? 1.2 : 1;
  const orders: OrderImport[] = [];
  const events: TrackingEventInput[] = [];
  const at = (ms: number) => new Date(Math.min(ms, now)).toISOString();
  // Evenings are busier: a visit's time is the later of two draws 60 % of the time.
  const visitTime = () => dayStart + Math.floor((random() < 0.6 ? Math.max(random(), random()) : random()) * (DAY_MS - 40 * MINUTE_MS)) + 40 * MINUTE_MS;

  const orderCount = Math.round(options.ordersPerDay * weekend * (0.7 + random() * 0.6));
  for (let i = 0; i < orderCount; i++) {
    const placed = visitTime();
    if (placed > now) continue;
    // Earlier shoppers come back: a third of orders go to the first fifth of the pool.
    const shopper = random() < 0.33 ? Math.floor(random() * options.customers * 0.2) : Math.floor(random() * options.customers);
    const email = `shopper${shopper}@example.org`;
    const fbp = `fb.1.${1_700_000_000_000 + shopper}.${shopper}`;
    const orderId = `NW-${date.replaceAll('-', '')}-${String(i + 1).padStart(4, '0')}`;
    const value = Math.round((25 + random() * random() * 260) * 100) / 100;
    const currency = weighted(random, CURRENCIES);
    const status = weighted(random, STATUSES);
    const tags = [...(random() < 0.1 ? ['vip'] : []), ...(random() < 0.1 ? ['subscription'] : []), ...(random() < 0.03 ? ['wholesale'] : [])];
    const refundAt = at(placed + (1 + Math.floor(random() * 4)) * DAY_MS);
    const refunds =
      status === 'refunded' ? [{ amount: value, processedAt: refundAt }] : status === 'partially_refunded' ? [{ amount: Math.round(value * 30) / 100, processedAt: refundAt }] : [];
    const source = weighted(random, SOURCES);
    const items = demoItems(costRandom, value);
    // Web orders ship with a carrier whose label cost is known; the other sources use the default.
    const shipping = source === 'web' ? { shippingCost: Math.round((4.5 + costRandom() * 5) * 100) / 100, shippingCharged: value > 100 ? 0 : 5.95 } : {};
    orders.push({
      orderId,
      orderDate: at(placed),
      value,
      currency,
      sourceName: source,
      tags,
      paymentGateway: weighted(random, GATEWAYS),
      financialStatus: status,
      refunds,
      customer: { emails: [email], ...(shopper % 3 === 0 ? { userIds: [`cust_${shopper}`] } : {}) },
      items,
      ...shipping,
    });
    const url = landingUrl(random, journey);
    // The shopper's browser: the same first-party anonymous id on every visit, orders included.
    const anonymousId = `nw-${shopper}`;
    const visitor = { click: { fbp } };
    events.push(...earlierVisits(journey, placed, anonymousId, now));
    events.push(
      { name: 'page_view', timestamp: at(placed - 25 * MINUTE_MS), page: { url }, ...visitor, user: { anonymousId } },
      { name: 'add_to_cart', timestamp: at(placed - 15 * MINUTE_MS), page: { url: 'https://northwind.example/products/rain-jacket' }, ...visitor, user: { anonymousId } },
      { name: 'begin_checkout', timestamp: at(placed - 5 * MINUTE_MS), page: { url: 'https://northwind.example/checkout' }, ...visitor, user: { emails: [email], anonymousId } },
      {
        name: 'purchase',
        timestamp: at(placed),
        page: { url },
        ...visitor,
        user: { emails: [email], anonymousId },
        data: { orderId, value, currency },
      },
    );
  }

  const visits = Math.round(options.visitsPerDay * weekend * (0.8 + random() * 0.4));
  for (let i = 0; i < visits; i++) {
    const start = visitTime() - 30 * MINUTE_MS;
    if (start > now) continue;
    const fbp = `fb.1.${1_800_000_000_000 + dayNumber * 10_000 + i}.${i}`;
    const url = landingUrl(random, journey);
    const pages = 1 + Math.floor(random() * 3);
    for (let p = 0; p < pages; p++) events.push({ name: 'page_view', timestamp: at(start + p * 2 * MINUTE_MS), page: { url: p === 0 ? url : 'https://northwind.example/products' }, click: { fbp } });
    if (random() < 0.3) events.push({ name: 'add_to_cart', timestamp: at(start + 8 * MINUTE_MS), click: { fbp } });
    if (random() < 0.1) events.push({ name: 'initiate_checkout', timestamp: at(start + 12 * MINUTE_MS), click: { fbp } });
  }
  return { date, orders, events };
}
