import { PLATFORMS, type AdImport, type FxRatesEntry, type Platform } from '../../shared/schemas/ad-import';

/**
 * Deterministic demo ads: a made-up outdoor-clothing merchant advertising on Meta, Google and
 * TikTok from five ad accounts in five currencies, with hourly metrics that follow the day (quiet
 * nights, evening peaks in the account's own region, busier weekends), ads that start late,
 * pause, or skip days, and exchange rates for every day the metrics cover.
 *
 * Everything comes from a seeded PRNG: the same options always give the same ads. Ad `i` depends
 * only on (seed, i, end, days), never on how many ads are generated, and ads are yielded one at a
 * time, so a benchmark can stream 10,000 ads x 90 days into an import batch by batch.
 */
export interface DemoAdsOptions {
  /** How many ads; platforms take turns (meta, google, tiktok, meta, ...). */
  ads: number;
  /** Days of hourly metrics, ending with the hour of `end`. */
  days: number;
  /** The last hour with metrics is the UTC hour containing this instant. */
  end: Date;
  seed: number;
}

export const DEMO_DEFAULTS = { ads: 60, days: 90, seed: 20_260_301 } as const;

/** Currencies the demo rates cover (units per 1 USD); the ad accounts use the first five. */
export const DEMO_FX_BASE: Readonly<Record<string, number>> = { USD: 1, EUR: 0.92, GBP: 0.79, CAD: 1.37, AUD: 1.53, JPY: 151.2 };

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

interface DemoAccount {
  accountId: string;
  accountName: string;
  currency: string;
  /** Hours to add to UTC to get the audience's local time, for the daily rhythm. */
  utcOffset: number;
}

/** Per platform: the main account, and a second one (another currency for Meta and Google) that every third campaign runs in. */
const ACCOUNTS: Record<Platform, [DemoAccount, DemoAccount]> = {
  meta: [
    { accountId: 'act_1048576001', accountName: 'Northwind Outfitters EU', currency: 'EUR', utcOffset: 1 },
    { accountId: 'act_1048576002', accountName: 'Northwind Outfitters Australia', currency: 'AUD', utcOffset: 10 },
  ],
  google: [
    { accountId: '384-221-9051', accountName: 'Northwind Outfitters US', currency: 'USD', utcOffset: -5 },
    { accountId: '512-730-4418', accountName: 'Northwind Outfitters Canada', currency: 'CAD', utcOffset: -5 },
  ],
  tiktok: [
    { accountId: '7301846522910', accountName: 'Northwind Outfitters UK', currency: 'GBP', utcOffset: 0 },
    { accountId: '7301846522911', accountName: 'Northwind Outfitters UK – Outlet', currency: 'GBP', utcOffset: 0 },
  ],
};

export const CAMPAIGNS: Record<Platform, readonly string[]> = {
  meta: ['Spring Collection – Prospecting', 'Retargeting – Cart Abandoners', 'Lookalike – Top Customers', 'Always-on Catalog Sales', 'Summer Sale – Broad'],
  google: ['Brand Search', 'Generic Search – Rain Jackets', 'Performance Max – All Products', 'Shopping – Bestsellers', 'YouTube – Trail Stories'],
  tiktok: ['Spark Ads – Creators', 'In-Feed – Gen Z Prospecting', 'Retargeting – Video Viewers', 'Spring Drop – Launch'],
};

const ADSETS: Record<Platform, readonly string[]> = {
  meta: ['Broad 18–54', 'Women 25–44', 'Interests: Hiking & Camping', 'Lookalike 1% – Purchasers', 'Website visitors 30d'],
  google: ['Exact match', 'Phrase match', 'Asset group – Outerwear', 'Asset group – Footwear', 'In-market: Outdoor gear'],
  tiktok: ['Auto targeting', 'Interest: Outdoors', 'Custom audience – Engagers', 'Age 18–34'],
};

const CREATIVES: Record<Platform, readonly string[]> = {
  meta: ['Video – UGC Testimonial', 'Carousel – Bestsellers', 'Static – 20% Off', 'Video – Product Demo', 'Collection – New In'],
  google: ['Responsive Search Ad A', 'Responsive Search Ad B', 'Shopping – Product Group', 'Video – 15s Bumper', 'Display – Retargeting Banner'],
  tiktok: ['Spark – Creator Haul', 'In-Feed – Unboxing', 'In-Feed – Trail Try-on', 'TopView – Spring Drop'],
};

/** Share of a day's spend by local hour: quiet at night, a lunch bump, an evening peak. */
const DIURNAL = normalise([
  0.35, 0.22, 0.15, 0.12, 0.12, 0.18, 0.35, 0.6, 0.8, 0.9, 0.95, 1.0, 1.1, 1.05, 0.95, 0.95, 1.0, 1.1, 1.3, 1.5, 1.6, 1.45, 1.05, 0.65,
]);
const DAILY_BUDGETS = [20, 30, 50, 75, 100, 150, 250] as const;
const ADS_PER_ADSET = 2;
const ADSETS_PER_CAMPAIGN = 2;

export function* generateDemoAds(options: DemoAdsOptions): Generator<AdImport> {
  const lastHour = Math.floor(options.end.getTime() / HOUR_MS) * HOUR_MS;
  const firstHour = lastHour - (options.days * 24 - 1) * HOUR_MS;
  for (let index = 0; index < options.ads; index++) yield demoAd(index, options.seed, firstHour, lastHour);
}

/** Rates for every UTC date from the first metrics hour to the last, a gentle random walk around DEMO_FX_BASE. */
export function generateDemoFxRates(options: Omit<DemoAdsOptions, 'ads'>): FxRatesEntry[] {
  const lastHour = Math.floor(options.end.getTime() / HOUR_MS) * HOUR_MS;
  const firstDay = Math.floor((lastHour - (options.days * 24 - 1) * HOUR_MS) / DAY_MS) * DAY_MS;
  const random = prng(mix(options.seed, 0x5eed_f00d));
  const drift = Object.fromEntries(Object.keys(DEMO_FX_BASE).map((code) => [code, 0]));
  const entries: FxRatesEntry[] = [];
  for (let day = firstDay; day <= lastHour; day += DAY_MS) {
    const rates: Record<string, number> = {};
    for (const [code, base] of Object.entries(DEMO_FX_BASE)) {
      if (code === 'USD') {
        rates[code] = 1;
        continue;
      }
      // Mean-reverting daily moves of up to ±0.4%: plausible, and never far from the base.
      drift[code] = (drift[code] as number) * 0.95 + (random() - 0.5) * 0.008;
      rates[code] = Number((base * Math.exp(drift[code] as number)).toPrecision(6));
    }
    entries.push({ date: new Date(day).toISOString().slice(0, 10), rates });
  }
  return entries;
}

function demoAd(index: number, seed: number, firstHour: number, lastHour: number): AdImport {
  const random = prng(mix(seed, index));
  const platform = PLATFORMS[index % PLATFORMS.length] as Platform;
  const nth = Math.floor(index / PLATFORMS.length);
  const adsetNumber = Math.floor(nth / ADS_PER_ADSET);
  const campaignNumber = Math.floor(adsetNumber / ADSETS_PER_CAMPAIGN);
  const account = ACCOUNTS[platform][campaignNumber % 3 === 2 ? 1 : 0];
  // Every fifth campaign is paused, so its ads show ACTIVE with an effective status of CAMPAIGN_PAUSED.
  const campaignPaused = campaignNumber % 5 === 3;

  const days = Math.round((lastHour - firstHour + HOUR_MS) / DAY_MS);
  const adPaused = random() < 0.2;
  const startsLate = random() < 0.2;
  const startDay = startsLate ? Math.floor(random() * days * 0.7) : 0;
  const stopDay = adPaused || campaignPaused ? startDay + Math.floor(random() * (days - startDay)) : days;
  const dailyBudget = pick(random, DAILY_BUDGETS);
  const utilisation = 0.55 + random() * 0.4;
  const cpm = 4 + random() * 14;
  const ctr = 0.006 + random() * 0.019;
  const conversionRate = 0.01 + random() * 0.05;
  const averageOrder = 35 + random() * 105;

  const hourly: NonNullable<AdImport['hourly']> = [];
  let spentInWindow = 0;
  let spentToday = 0;
  const lastDayStart = Math.floor(lastHour / DAY_MS) * DAY_MS;
  for (let day = startDay; day < stopDay; day++) {
    if (random() < 0.04) continue; // a day the ad did not deliver (limited, rejected, out of stock)
    const dayStart = firstHour + day * DAY_MS;
    const weekday = new Date(dayStart).getUTCDay();
    const daySpend = dailyBudget * utilisation * (0.8 + random() * 0.4) * (weekday === 0 || weekday === 6 ? 1.15 : 1);
    for (let h = 0; h < 24; h++) {
      const hour = dayStart + h * HOUR_MS;
      if (hour > lastHour) break;
      const localHour = (((new Date(hour).getUTCHours() + account.utcOffset) % 24) + 24) % 24;
      const spend = round2(daySpend * (DIURNAL[localHour] as number) * (0.85 + random() * 0.3));
      if (spend < 0.01) continue;
      const impressions = Math.max(1, Math.round((spend / cpm) * 1000 * (0.9 + random() * 0.2)));
      const clicks = roundRandomly(impressions * ctr, random);
      const conversions = roundRandomly(clicks * conversionRate, random);
      const conversionValue = conversions === 0 ? 0 : round2(conversions * averageOrder * (0.7 + random() * 0.6));
      hourly.push({ hour, spend, impressions, clicks, conversions, conversionValue });
      spentInWindow += spend;
      if (hour >= lastDayStart) spentToday += spend;
    }
  }

  const createdAt = startsLate
    ? firstHour + startDay * DAY_MS - Math.floor(random() * 48) * HOUR_MS
    : firstHour - (5 + Math.floor(random() * 200)) * DAY_MS - Math.floor(random() * 24) * HOUR_MS;
  const stoppedAt = Math.min(firstHour + stopDay * DAY_MS, lastHour);
  const updatedAt = adPaused || campaignPaused ? stoppedAt : Math.max(createdAt, lastHour - Math.floor(random() * 10 * 24) * HOUR_MS);
  const lifetimeBefore = startsLate ? 0 : dailyBudget * utilisation * (createdAt < firstHour ? (firstHour - createdAt) / DAY_MS : 0) * 0.8;
  const ownStatus = adPaused ? 'PAUSED' : 'ACTIVE';
  const creative = pick(random, CREATIVES[platform]);

  return {
    platform,
    accountId: account.accountId,
    accountName: account.accountName,
    ...demoAdIds(platform, nth),
    campaignName: cycleName(CAMPAIGNS[platform], campaignNumber),
    adsetName: cycleName(ADSETS[platform], adsetNumber),
    adName: `${creative} – v${1 + (nth % 3)}`,
    status: ownStatus,
    configuredStatus: ownStatus,
    effectiveStatus: adPaused ? 'PAUSED' : campaignPaused ? 'CAMPAIGN_PAUSED' : 'ACTIVE',
    currency: account.currency,
    dailyBudget,
    // TikTok's API does not report a remaining budget, so its ads show the null case.
    budgetRemaining: platform === 'tiktok' ? null : round2(Math.max(0, dailyBudget - spentToday)),
    amountSpent: round2(lifetimeBefore + spentInWindow),
    createdAt: new Date(createdAt).toISOString(),
    updatedAt: new Date(updatedAt).toISOString(),
    hourly,
  };
}

/** How many ads each platform's demo campaigns hold: a campaign's ads are `nth` = campaign × this … + this − 1. */
export const DEMO_ADS_PER_CAMPAIGN = ADS_PER_ADSET * ADSETS_PER_CAMPAIGN;

/**
 * The ids of a platform's `nth` demo ad (its campaign, ad set and own id): the ids the demo ads
 * are imported with, and the ones the demo journeys' landing URLs carry (`campaign_id`, `adset_id`, `ad_id`).
 */
export function demoAdIds(platform: Platform, nth: number): { campaignId: string; adsetId: string; adId: string } {
  const adsetNumber = Math.floor(nth / ADS_PER_ADSET);
  const campaignNumber = Math.floor(adsetNumber / ADSETS_PER_CAMPAIGN);
  return {
    campaignId: `${platformIdPrefix(platform)}1${String(campaignNumber).padStart(9, '0')}`,
    adsetId: `${platformIdPrefix(platform)}2${String(adsetNumber).padStart(9, '0')}`,
    adId: `${platformIdPrefix(platform)}3${String(nth).padStart(9, '0')}`,
  };
}

function platformIdPrefix(platform: Platform): string {
  return { meta: '12021', google: '6840', tiktok: '17930' }[platform];
}

/** Names repeat once the list runs out, numbered so that every campaign keeps a distinct name. */
function cycleName(names: readonly string[], number: number): string {
  const name = names[number % names.length] as string;
  const round = Math.floor(number / names.length);
  return round === 0 ? name : `${name} #${round + 1}`;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Rounds up with probability equal to the fraction, so small expected counts still add up right. */
function roundRandomly(value: number, random: () => number): number {
  return Math.floor(value + random());
}

function normalise(weights: number[]): number[] {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  return weights.map((weight) => weight / total);
}

/** Combines a seed and a stream number into a well-spread 32-bit seed (MurmurHash3's finaliser). */
export function mix(seed: number, stream: number): number {
  let h = (seed ^ Math.imul(stream + 0x9e3779b9, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** mulberry32: tiny, fast, and good enough for demo data; never Math.random, so runs repeat. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
