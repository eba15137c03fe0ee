/**
 * The measures catalog (GET /db-mgmt/api/measures): every measure id the service knows, with what
 * a client needs to display it. It is the one source of truth: the filter-field catalog derives
 * its metric fields from it, and the ad listing computes the ad-platform measures from
 * `AD_MEASURE_DEFINITIONS` below. A later namespace (`orders.*`, `core.*`) adds entries to
 * `MEASURES`; consumers that look measures up by id need no change.
 */

export const MEASURE_FORMATS = ['number', 'currency', 'percent', 'ratio'] as const;
export type MeasureFormat = (typeof MEASURE_FORMATS)[number];

/**
 * Where a measure id may be used. A name per consumer rather than per endpoint family, so that a
 * measure can be offered to dashboards before, or without, a query endpoint that computes it.
 */
export const MEASURE_CONTEXTS = ['query_ads', 'dashboards'] as const;
export type MeasureContext = (typeof MEASURE_CONTEXTS)[number];

export interface MeasureCatalogEntry {
  /** `<namespace>.<name>` */
  id: string;
  namespace: string;
  title: string;
  /** What a dashboard widget shows as its title. */
  shortTitle: string;
  description: string;
  format: MeasureFormat;
  /** True when a period's value is not the sum of its days (ratios): totals are recomputed, not added. */
  isAverage: boolean;
  /** True when the value is in percent points (2.5 means 2.5 %). */
  isPercentage: boolean;
  /** Which way of a change is good news, for colouring comparisons. */
  preferredTrendDirection: 'up' | 'down';
  contexts: readonly MeasureContext[];
}

export const AD_PLATFORMS = ['meta', 'google', 'tiktok'] as const;
export type AdPlatform = (typeof AD_PLATFORMS)[number];

const PLATFORM_NAMES: Record<AdPlatform, string> = { meta: 'Meta', google: 'Google Ads', tiktok: 'TikTok' };

/** The stored hourly numbers of an ad that every ad-platform measure is computed from. */
export const AD_METRIC_PARTS = ['spend', 'impressions', 'clicks', 'conversions', 'conversionValue'] as const;
export type AdMetricPart = (typeof AD_METRIC_PARTS)[number];

/** Parts held in the ad account's own currency, which must be converted to the requested one. */
export const MONEY_PARTS: ReadonlySet<AdMetricPart> = new Set<AdMetricPart>(['spend', 'conversionValue']);

/**
 * How a measure is computed from the parts over any period (a day, a whole date range): a sum
 * adds a part up; a ratio is `sum(numerator) / sum(denominator) × scale` over that period, never
 * an average of daily ratios. A ratio whose denominator sums to 0 has no value (null).
 */
export type AdMeasureComputation =
  | { kind: 'sum'; part: AdMetricPart }
  | { kind: 'ratio'; numerator: AdMetricPart; denominator: AdMetricPart; scale: number };

export interface AdMeasureDefinition {
  /** The one platform whose ads count; `null` counts every platform. */
  platform: AdPlatform | null;
  compute: AdMeasureComputation;
}

const CHANNEL_METRICS = ['spend', 'impressions', 'clicks', 'ctr', 'cpc', 'cpm', 'conversions', 'conversion_value', 'roas'] as const;
/** Platform namespaces carry the delivery metrics only: conversions are attributed across platforms. */
const PLATFORM_METRICS = ['spend', 'impressions', 'clicks', 'ctr', 'cpc', 'cpm'] as const;
type ChannelMetric = (typeof CHANNEL_METRICS)[number];
type PlatformMetric = (typeof PLATFORM_METRICS)[number];

export type AdMeasureId = `channel.${ChannelMetric}` | `${AdPlatform}.${PlatformMetric}`;

interface AdMetricSpec {
  title: string;
  shortTitle: string;
  /** Completed with the scope, e.g. "across all connected ad platforms". */
  describe: (scope: string) => string;
  format: MeasureFormat;
  isPercentage: boolean;
  /*
   * Volume and revenue go `up`. Cost goes `down`, and that includes spend itself: more spend is
   * not good news on its own, and whether it paid off is read from roas and conversions.
   */
  preferredTrendDirection: 'up' | 'down';
  compute: AdMeasureComputation;
}

const MONEY_NOTE = 'Converted to the requested currency at the rate of each hour’s date.';

const AD_METRIC_SPECS: Record<ChannelMetric, AdMetricSpec> = {
  spend: {
    title: 'Ad spend',
    shortTitle: 'Spend',
    describe: (scope) => `Amount spent on ads ${scope}. ${MONEY_NOTE}`,
    format: 'currency',
    isPercentage: false,
    preferredTrendDirection: 'down',
    compute: { kind: 'sum', part: 'spend' },
  },
  impressions: {
    title: 'Impressions',
    shortTitle: 'Impressions',
    describe: (scope) => `Times ads were shown ${scope}.`,
    format: 'number',
    isPercentage: false,
    preferredTrendDirection: 'up',
    compute: { kind: 'sum', part: 'impressions' },
  },
  clicks: {
    title: 'Clicks',
    shortTitle: 'Clicks',
    describe: (scope) => `Clicks on ads ${scope}.`,
    format: 'number',
    isPercentage: false,
    preferredTrendDirection: 'up',
    compute: { kind: 'sum', part: 'clicks' },
  },
  ctr: {
    title: 'Click-through rate',
    shortTitle: 'CTR',
    describe: (scope) => `Clicks ÷ impressions × 100 ${scope}, in percent (2.5 means 2.5 %). No value when there were no impressions.`,
    format: 'percent',
    isPercentage: true,
    preferredTrendDirection: 'up',
    compute: { kind: 'ratio', numerator: 'clicks', denominator: 'impressions', scale: 100 },
  },
  cpc: {
    title: 'Cost per click',
    shortTitle: 'CPC',
    describe: (scope) => `Spend ÷ clicks ${scope}. ${MONEY_NOTE} No value when there were no clicks.`,
    format: 'currency',
    isPercentage: false,
    preferredTrendDirection: 'down',
    compute: { kind: 'ratio', numerator: 'spend', denominator: 'clicks', scale: 1 },
  },
  cpm: {
    title: 'Cost per thousand impressions',
    shortTitle: 'CPM',
    describe: (scope) => `Spend ÷ impressions × 1000 ${scope}. ${MONEY_NOTE} No value when there were no impressions.`,
    format: 'currency',
    isPercentage: false,
    preferredTrendDirection: 'down',
    compute: { kind: 'ratio', numerator: 'spend', denominator: 'impressions', scale: 1000 },
  },
  conversions: {
    title: 'Conversions',
    shortTitle: 'Conversions',
    describe: (scope) => `Conversions the ad platforms reported ${scope}.`,
    format: 'number',
    isPercentage: false,
    preferredTrendDirection: 'up',
    compute: { kind: 'sum', part: 'conversions' },
  },
  conversion_value: {
    title: 'Conversion value',
    shortTitle: 'Conv. value',
    describe: (scope) => `Value of the conversions the ad platforms reported ${scope}. ${MONEY_NOTE}`,
    format: 'currency',
    isPercentage: false,
    preferredTrendDirection: 'up',
    compute: { kind: 'sum', part: 'conversionValue' },
  },
  roas: {
    title: 'Return on ad spend',
    shortTitle: 'ROAS',
    describe: (scope) => `Conversion value ÷ spend ${scope} (3 means 3 of revenue per 1 spent). No value when nothing was spent.`,
    format: 'ratio',
    isPercentage: false,
    preferredTrendDirection: 'up',
    compute: { kind: 'ratio', numerator: 'conversionValue', denominator: 'spend', scale: 1 },
  },
};

interface AdMeasure {
  entry: MeasureCatalogEntry & { id: AdMeasureId };
  definition: AdMeasureDefinition;
}

function adMeasure(namespace: 'channel' | AdPlatform, metric: ChannelMetric): AdMeasure {
  const spec = AD_METRIC_SPECS[metric];
  const platform = namespace === 'channel' ? null : namespace;
  const scope = platform ? `on ${PLATFORM_NAMES[platform]}` : 'across all connected ad platforms';
  return {
    entry: {
      id: `${namespace}.${metric}` as AdMeasureId,
      namespace,
      title: platform ? `${PLATFORM_NAMES[platform]} ${spec.title.toLowerCase().replace(/^ad /, '')}` : spec.title,
      shortTitle: platform ? `${PLATFORM_NAMES[platform]} ${spec.shortTitle}` : spec.shortTitle,
      description: spec.describe(scope),
      format: spec.format,
      isAverage: spec.compute.kind === 'ratio',
      isPercentage: spec.isPercentage,
      preferredTrendDirection: spec.preferredTrendDirection,
      contexts: ['query_ads', 'dashboards'],
    },
    definition: { platform, compute: spec.compute },
  };
}

const AD_MEASURES: readonly AdMeasure[] = [
  ...CHANNEL_METRICS.map((metric) => adMeasure('channel', metric)),
  ...AD_PLATFORMS.flatMap((platform) => PLATFORM_METRICS.map((metric) => adMeasure(platform, metric))),
];

/** Every ad-platform measure id, in catalog order: `channel.*` first, then each platform's. */
export const AD_MEASURE_IDS: readonly AdMeasureId[] = AD_MEASURES.map(({ entry }) => entry.id);

/** How the ad listing computes each ad-platform measure. */
export const AD_MEASURE_DEFINITIONS = Object.fromEntries(
  AD_MEASURES.map(({ entry, definition }) => [entry.id, definition]),
) as Readonly<Record<AdMeasureId, AdMeasureDefinition>>;

const AD_MEASURE_ID_SET: ReadonlySet<string> = new Set(AD_MEASURE_IDS);

export function isAdMeasureId(id: string): id is AdMeasureId {
  return AD_MEASURE_ID_SET.has(id);
}

/** The whole catalog, in the order GET /db-mgmt/api/measures lists it. */
export const MEASURES: readonly MeasureCatalogEntry[] = AD_MEASURES.map(({ entry }) => entry);

const MEASURES_BY_ID: ReadonlyMap<string, MeasureCatalogEntry> = new Map(MEASURES.map((measure) => [measure.id, measure]));

export function findMeasure(id: string): MeasureCatalogEntry | undefined {
  return MEASURES_BY_ID.get(id);
}
