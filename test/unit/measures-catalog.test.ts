import { describe, expect, it } from 'vitest';
import {
  AD_MEASURE_DEFINITIONS,
  AD_MEASURE_IDS,
  AD_METRIC_PARTS,
  MEASURE_CONTEXTS,
  MEASURE_FORMATS,
  MEASURES,
  MONEY_PARTS,
  findMeasure,
  isAdMeasureId,
  type AdMeasureDefinition,
  type AdMetricPart,
} from '../../shared/catalog/measures';

const DOTTED_ID = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;

/** The ad-platform measures the spec and the issue name, written out independently of the catalog. */
const EXPECTED_AD_MEASURES = [
  ...['spend', 'impressions', 'clicks', 'ctr', 'cpc', 'cpm', 'conversions', 'conversion_value', 'roas'].map((m) => `channel.${m}`),
  ...['meta', 'google', 'tiktok'].flatMap((platform) => ['spend', 'impressions', 'clicks', 'ctr', 'cpc', 'cpm'].map((m) => `${platform}.${m}`)),
];

/** What a definition yields for a period with these totals: the engine's contract, restated. */
function computeFrom(definition: AdMeasureDefinition, totals: Record<AdMetricPart, number>): number | null {
  const { compute } = definition;
  if (compute.kind === 'sum') return totals[compute.part];
  const denominator = totals[compute.denominator];
  return denominator === 0 ? null : (totals[compute.numerator] / denominator) * compute.scale;
}

describe('the measures catalog', () => {
  it('lists every ad-platform measure of the spec, and AD_MEASURE_IDS is exactly that list', () => {
    expect([...AD_MEASURE_IDS].sort()).toEqual([...EXPECTED_AD_MEASURES].sort());
    expect(MEASURES.map((m) => m.id)).toEqual(expect.arrayContaining(EXPECTED_AD_MEASURES));
    // The listing accepts at most 30 measures a request, so all of them fit in one.
    expect(AD_MEASURE_IDS.length).toBeLessThanOrEqual(30);
  });

  it('gives every measure a unique dotted id whose first part is its namespace', () => {
    for (const measure of MEASURES) {
      expect(measure.id).toMatch(DOTTED_ID);
      expect(measure.id.split('.')[0]).toBe(measure.namespace);
    }
    expect(new Set(MEASURES.map((m) => m.id)).size).toBe(MEASURES.length);
  });

  it('describes every measure completely, with plain JSON a client can read', () => {
    for (const measure of MEASURES) {
      expect(Object.keys(measure).sort()).toEqual(
        ['contexts', 'description', 'format', 'id', 'isAverage', 'isPercentage', 'namespace', 'preferredTrendDirection', 'shortTitle', 'title'],
      );
      expect(measure.title.length).toBeGreaterThan(0);
      expect(measure.shortTitle.length).toBeGreaterThan(0);
      expect(measure.description.length).toBeGreaterThan(20);
      expect(MEASURE_FORMATS).toContain(measure.format);
      expect(['up', 'down']).toContain(measure.preferredTrendDirection);
      expect(measure.contexts.length).toBeGreaterThan(0);
      for (const context of measure.contexts) expect(MEASURE_CONTEXTS).toContain(context);
    }
    expect(JSON.parse(JSON.stringify(MEASURES))).toEqual(MEASURES);
  });

  it('offers every ad-platform measure to the ad listing and to dashboards', () => {
    for (const id of AD_MEASURE_IDS) expect(findMeasure(id)?.contexts).toEqual(id === 'channel.spend' ? ['query', 'query_ads', 'query_attribution', 'dashboards'] : ['query', 'query_ads', 'dashboards']);
  });

  it.each([
    ['spend', 'currency', false, false, 'down'],
    ['impressions', 'number', false, false, 'up'],
    ['clicks', 'number', false, false, 'up'],
    ['ctr', 'percent', true, true, 'up'],
    ['cpc', 'currency', true, false, 'down'],
    ['cpm', 'currency', true, false, 'down'],
    ['conversions', 'number', false, false, 'up'],
    ['conversion_value', 'currency', false, false, 'up'],
    ['roas', 'ratio', true, false, 'up'],
  ] as const)('%s: format %s, isAverage %s, isPercentage %s, preferred trend %s, on every namespace', (name, format, isAverage, isPercentage, trend) => {
    const ids = AD_MEASURE_IDS.filter((id) => id.endsWith(`.${name}`));
    expect(ids.length).toBeGreaterThan(0);
    for (const id of ids) {
      expect(findMeasure(id)).toMatchObject({ format, isAverage, isPercentage, preferredTrendDirection: trend });
    }
  });

  it('names the platform in per-platform titles, as a dashboard widget shows them', () => {
    expect(findMeasure('meta.cpm')).toMatchObject({ title: 'Meta cost per thousand impressions', shortTitle: 'Meta CPM' });
    expect(findMeasure('google.spend')).toMatchObject({ title: 'Google Ads spend', shortTitle: 'Google Ads Spend' });
    expect(findMeasure('channel.roas')).toMatchObject({ title: 'Return on ad spend', shortTitle: 'ROAS' });
  });
});

describe('ad measure definitions (what the ad listing computes)', () => {
  it('defines every ad-platform measure, and nothing else', () => {
    expect(Object.keys(AD_MEASURE_DEFINITIONS).sort()).toEqual([...AD_MEASURE_IDS].sort());
  });

  it('scopes channel.* to every platform and <platform>.* to its own', () => {
    for (const id of AD_MEASURE_IDS) {
      const namespace = id.split('.')[0];
      expect(AD_MEASURE_DEFINITIONS[id].platform).toBe(namespace === 'channel' ? null : namespace);
    }
  });

  it('computes sums and ratios from the stored parts as the descriptions say', () => {
    // Prepare: one period's totals for an ad.
    const totals = { spend: 50, impressions: 20_000, clicks: 400, conversions: 8, conversionValue: 240 };

    // Act
    const values = Object.fromEntries(AD_MEASURE_IDS.filter((id) => id.startsWith('channel.')).map((id) => [id, computeFrom(AD_MEASURE_DEFINITIONS[id], totals)]));

    // Assess
    expect(values).toEqual({
      'channel.spend': 50,
      'channel.impressions': 20_000,
      'channel.clicks': 400,
      'channel.ctr': 2, // 400 / 20000 × 100, in percent points
      'channel.cpc': 0.125,
      'channel.cpm': 2.5,
      'channel.conversions': 8,
      'channel.conversion_value': 240,
      'channel.roas': 4.8,
    });
  });

  it('gives a ratio no value when its denominator is zero', () => {
    const none = { spend: 0, impressions: 0, clicks: 0, conversions: 0, conversionValue: 0 };
    for (const id of ['channel.ctr', 'channel.cpc', 'channel.cpm', 'channel.roas', 'meta.ctr'] as const) {
      expect(computeFrom(AD_MEASURE_DEFINITIONS[id], none)).toBeNull();
    }
  });

  it('marks exactly the ratio measures as averages', () => {
    for (const id of AD_MEASURE_IDS) expect(findMeasure(id)?.isAverage).toBe(AD_MEASURE_DEFINITIONS[id].compute.kind === 'ratio');
  });

  it('names spend and conversion value as the parts that need currency conversion', () => {
    expect([...MONEY_PARTS].sort()).toEqual(['conversionValue', 'spend']);
    for (const part of MONEY_PARTS) expect(AD_METRIC_PARTS).toContain(part);
  });

  it('formats as currency exactly the measures whose value is money', () => {
    for (const id of AD_MEASURE_IDS) {
      const { compute } = AD_MEASURE_DEFINITIONS[id];
      const isMoney =
        compute.kind === 'sum' ? MONEY_PARTS.has(compute.part) : MONEY_PARTS.has(compute.numerator) && !MONEY_PARTS.has(compute.denominator);
      expect(findMeasure(id)?.format === 'currency').toBe(isMoney);
    }
  });
});

describe('looking measures up', () => {
  it('finds a measure by id and answers undefined for an unknown one', () => {
    expect(findMeasure('tiktok.cpc')?.id).toBe('tiktok.cpc');
    expect(findMeasure('tiktok.roas')).toBeUndefined();
    expect(findMeasure('orders.total_revenue')?.contexts).toEqual(['query', 'dashboards']);
  });

  it.each([
    ['channel.spend', true],
    ['meta.cpm', true],
    ['google.conversions', false],
    ['orders.total_revenue', false],
    ['channel.Spend', false],
    ['', false],
    ['toString', false],
  ])('isAdMeasureId(%j) is %s', (id, expected) => {
    expect(isAdMeasureId(id)).toBe(expected);
  });
});
