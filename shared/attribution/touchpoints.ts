import type { StoredEvent } from '../tracking/stored-event';
import { UTM_PARAMETERS, type UtmParameter } from '../tracking/utm';

/**
 * Which events are marketing touchpoints, and what they say (issue P8 item 2). One table-driven
 * module: the tables below are the whole rule set, and README.md ("Attribution") lists them.
 *
 * An event is a touchpoint when it carries a marketing signal, read in this order (the first that
 * applies wins):
 * 1. a click id: `gclid` → google; `fbc` or an `fbclid` URL parameter → meta; `ttclid` → tiktok
 *    (each read from the event's `click` object or, for gclid, fbclid and ttclid, from the page URL);
 * 2. `utm_source`, lower-cased, through `SOURCE_ALIASES` (kept lower-cased as is when not listed);
 * 3. a referrer on another domain than the page's: a search engine of `SEARCH_ENGINES` →
 *    `organic_search`; a social network of `SOCIAL_NETWORKS` → `organic_social`; else `referral`.
 * An event without any of these is not a touchpoint.
 */

export const AD_SOURCES = ['meta', 'google', 'tiktok'] as const;
export type AdSource = (typeof AD_SOURCES)[number];

/** Click ids, in the order they are checked, with the source they mean. */
export const CLICK_ID_RULES: ReadonlyArray<{ source: AdSource; click?: 'gclid' | 'fbc' | 'ttclid'; urlParameter: string }> = [
  { source: 'google', click: 'gclid', urlParameter: 'gclid' },
  { source: 'meta', click: 'fbc', urlParameter: 'fbclid' },
  { source: 'tiktok', click: 'ttclid', urlParameter: 'ttclid' },
];

/** `utm_source` values (lower-cased) that name an ad platform; any other value is kept as sent, lower-cased. */
export const SOURCE_ALIASES: Readonly<Record<string, AdSource>> = {
  meta: 'meta',
  facebook: 'meta',
  fb: 'meta',
  'facebook.com': 'meta',
  facebook_ads: 'meta',
  facebookads: 'meta',
  instagram: 'meta',
  ig: 'meta',
  'instagram.com': 'meta',
  messenger: 'meta',
  an: 'meta',
  audience_network: 'meta',
  google: 'google',
  'google.com': 'google',
  google_ads: 'google',
  googleads: 'google',
  adwords: 'google',
  gads: 'google',
  pmax: 'google',
  tiktok: 'tiktok',
  'tiktok.com': 'tiktok',
  tiktok_ads: 'tiktok',
  tiktokads: 'tiktok',
  tt: 'tiktok',
};

/**
 * Referrer hosts, as patterns: `name.*` is the label `name` followed by any public suffix
 * (google.com, google.co.uk, www.google.de); `domain.tld` is that domain or any of its subdomains.
 */
export const SEARCH_ENGINES: readonly string[] = [
  'google.*',
  'bing.com',
  'yahoo.*',
  'duckduckgo.com',
  'baidu.com',
  'yandex.*',
  'ecosia.org',
  'search.brave.com',
  'qwant.com',
  'naver.com',
  'seznam.cz',
  'ask.com',
  'startpage.com',
];

export const SOCIAL_NETWORKS: readonly string[] = [
  'facebook.com',
  'fb.com',
  'instagram.com',
  'messenger.com',
  'threads.net',
  't.co',
  'twitter.com',
  'x.com',
  'linkedin.com',
  'lnkd.in',
  'pinterest.*',
  'reddit.com',
  'tiktok.com',
  'youtube.com',
  'youtu.be',
  'snapchat.com',
  'tumblr.com',
  'vk.com',
  'whatsapp.com',
  'telegram.org',
  't.me',
];

/** URL parameters that carry ad ids (see README for the Meta, Google and TikTok URL templates). */
export const AD_ID_PARAMETERS = { campaignId: 'campaign_id', adsetId: 'adset_id', adId: 'ad_id' } as const;
/** Read as the campaign id when `campaign_id` is absent. */
export const CAMPAIGN_ID_FALLBACK = 'utm_id';

export interface Touchpoint {
  /** The delivery's key (`<eventId>@<entryId>`): stable, and the tie-breaker between equal times. */
  id: string;
  /** Epoch milliseconds. */
  at: number;
  source: string;
  utm: Partial<Record<UtmParameter, string>>;
  campaignId: string | null;
  adsetId: string | null;
  adId: string | null;
}

export type TouchpointSignal = Omit<Touchpoint, 'id' | 'at'>;

/** One parse, not a check and a parse: events are classified by the thousand in each projection batch, and few URLs are invalid. */
function urlOf(text: string | undefined): URL | undefined {
  if (!text) return undefined;
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** The host without a leading `www.`, lower-cased. */
const bareHost = (url: URL) => url.hostname.toLowerCase().replace(/^www\./, '');

export function hostMatches(host: string, pattern: string): boolean {
  if (pattern.endsWith('.*')) {
    const name = pattern.slice(0, -2);
    const labels = host.split('.');
    // `google.*`: the label followed by a suffix of one or two labels (com, co.uk, com.au).
    return labels.some((label, i) => label === name && labels.length - i - 1 >= 1 && labels.length - i - 1 <= 2);
  }
  return host === pattern || host.endsWith(`.${pattern}`);
}

function referrerSource(page: StoredEvent['page'], pageUrl: URL | undefined): string | undefined {
  const referrer = urlOf(page?.referrer);
  if (!referrer || (referrer.protocol !== 'http:' && referrer.protocol !== 'https:')) return undefined;
  const host = bareHost(referrer);
  // The same site (a click from one page to the next) is no signal.
  if (pageUrl && bareHost(pageUrl) === host) return undefined;
  if (SEARCH_ENGINES.some((pattern) => hostMatches(host, pattern))) return 'organic_search';
  if (SOCIAL_NETWORKS.some((pattern) => hostMatches(host, pattern))) return 'organic_social';
  return 'referral';
}

/** `utm_source` as attribution groups it: lower-cased, through the alias table. */
export function normalizeSource(utmSource: string): string {
  const lower = utmSource.trim().toLowerCase();
  return SOURCE_ALIASES[lower] ?? lower;
}

/** The marketing signal an event carries, or undefined when it is not a touchpoint. */
export function classifyTouchpoint(event: Pick<StoredEvent, 'page' | 'utm' | 'click'>): TouchpointSignal | undefined {
  const url = urlOf(event.page?.url);
  const parameter = (name: string) => url?.searchParams.get(name)?.trim() || undefined;
  let source: string | undefined;
  for (const rule of CLICK_ID_RULES) {
    if ((rule.click && event.click?.[rule.click]) || parameter(rule.urlParameter)) {
      source = rule.source;
      break;
    }
  }
  if (source === undefined && event.utm?.utm_source) source = normalizeSource(event.utm.utm_source);
  source ??= referrerSource(event.page, url);
  if (source === undefined) return undefined;
  const utm: Touchpoint['utm'] = {};
  for (const name of UTM_PARAMETERS) if (event.utm?.[name]) utm[name] = event.utm[name];
  return {
    source,
    utm,
    campaignId: parameter(AD_ID_PARAMETERS.campaignId) ?? parameter(CAMPAIGN_ID_FALLBACK) ?? null,
    adsetId: parameter(AD_ID_PARAMETERS.adsetId) ?? null,
    adId: parameter(AD_ID_PARAMETERS.adId) ?? null,
  };
}

/** The dimensions an attribution query splits by, and how each reads a touchpoint. */
export const ATTRIBUTION_DIMENSIONS = {
  source: (touchpoint: TouchpointSignal) => touchpoint.source,
  utm_source: (touchpoint: TouchpointSignal) => touchpoint.utm.utm_source ?? null,
  utm_medium: (touchpoint: TouchpointSignal) => touchpoint.utm.utm_medium ?? null,
  utm_campaign: (touchpoint: TouchpointSignal) => touchpoint.utm.utm_campaign ?? null,
  utm_content: (touchpoint: TouchpointSignal) => touchpoint.utm.utm_content ?? null,
  utm_term: (touchpoint: TouchpointSignal) => touchpoint.utm.utm_term ?? null,
  'channel.campaign_id': (touchpoint: TouchpointSignal) => touchpoint.campaignId,
  'channel.adset_id': (touchpoint: TouchpointSignal) => touchpoint.adsetId,
  'channel.ad_id': (touchpoint: TouchpointSignal) => touchpoint.adId,
} as const satisfies Record<string, (touchpoint: TouchpointSignal) => string | null>;

export type AttributionDimension = keyof typeof ATTRIBUTION_DIMENSIONS;
export const ATTRIBUTION_DIMENSION_IDS = Object.keys(ATTRIBUTION_DIMENSIONS) as AttributionDimension[];
