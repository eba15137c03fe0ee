import { describe, expect, it } from 'vitest';
import {
  AD_RESOURCE_SOURCES,
  FILTER_CONTEXTS,
  FILTER_FIELDS,
  FILTER_OPERATORS,
  findFilterField,
} from '../../shared/catalog/filter-fields';
import { AD_MEASURE_IDS } from '../../shared/catalog/measures';

/** Spec 4.2's table of accepted filter fields and operators, restated here and not derived. */
const SPEC_ATTRIBUTE_OPERATORS: Record<string, string[]> = {
  'channel.resource_source': ['equals', 'not_equals', 'in', 'not_in'],
  ...Object.fromEntries(['channel.account_id', 'channel.campaign_id', 'channel.adset_id', 'channel.ad_id'].map((f) => [f, ['equals', 'in', 'not_in']])),
  ...Object.fromEntries(
    ['channel.resource_name', 'channel.account_name', 'channel.campaign_name', 'channel.adset_name', 'channel.ad_name'].map((f) => [
      f,
      ['equals', 'not_equals', 'in', 'not_in', 'contains', 'not_contains', 'starts_with', 'ends_with'],
    ]),
  ),
  ...Object.fromEntries(
    ['channel.resource_status', 'channel.resource_configured_status', 'channel.resource_effective_status'].map((f) => [
      f,
      ['equals', 'not_equals', 'in', 'not_in'],
    ]),
  ),
};
const METRIC_OPERATORS = ['equals', 'not_equals', 'greater_than', 'greater_than_or_equals', 'less_than', 'less_than_or_equals'];

const attributes = FILTER_FIELDS.filter((entry) => entry.kind === 'attribute' && entry.applicableContexts.includes('query_ads'));
const metrics = FILTER_FIELDS.filter((entry) => entry.kind === 'metric');

describe('the filter-field catalog', () => {
  it('gives every field a unique dotted id of the form <group>.<name>', () => {
    for (const { field } of FILTER_FIELDS) expect(field).toMatch(/^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/);
    expect(new Set(FILTER_FIELDS.map((entry) => entry.field)).size).toBe(FILTER_FIELDS.length);
  });

  it('has the members of spec 2.6, plus kind, plus values where the set of values is closed', () => {
    for (const entry of FILTER_FIELDS) {
      const expected = ['applicableContexts', 'description', 'field', 'kind', 'label', 'supportedOperators', 'valueType'];
      expect(Object.keys(entry).sort()).toEqual(entry.values ? [...expected, 'values'].sort() : expected);
      expect(entry.label.length).toBeGreaterThan(0);
      expect(entry.description.length).toBeGreaterThan(20);
      expect(entry.applicableContexts.length).toBeGreaterThan(0);
      for (const context of entry.applicableContexts) expect(FILTER_CONTEXTS).toContain(context);
      for (const op of entry.supportedOperators) expect(FILTER_OPERATORS).toContain(op);
    }
    expect(JSON.parse(JSON.stringify(FILTER_FIELDS))).toEqual(FILTER_FIELDS);
  });

  it('lists exactly the basic-details fields of spec 4.2, with exactly their operators, as string attributes of query_ads', () => {
    expect(Object.fromEntries(attributes.map((entry) => [entry.field, [...entry.supportedOperators]]))).toEqual(SPEC_ATTRIBUTE_OPERATORS);
    for (const entry of attributes) {
      expect(entry.valueType).toBe('string');
      expect(entry.applicableContexts).toContain('query_ads');
    }
    // The ids and the platform also narrow the channel measures of the analytics query.
    expect(attributes.filter((entry) => entry.applicableContexts.includes('query_measures')).map((entry) => entry.field)).toEqual([
      'channel.resource_source',
      'channel.account_id',
      'channel.campaign_id',
      'channel.adset_id',
      'channel.ad_id',
    ]);
  });

  it('lists every ad-platform measure, and only those, as a number metric of query_ads with the comparison operators', () => {
    expect(metrics.map((entry) => entry.field)).toEqual([...AD_MEASURE_IDS]);
    for (const entry of metrics) {
      expect(entry).toMatchObject({ valueType: 'number', applicableContexts: ['query_ads'] });
      expect([...entry.supportedOperators]).toEqual(METRIC_OPERATORS);
    }
  });

  it('closes channel.resource_source to the three platform integration identifiers, and no other field', () => {
    expect(findFilterField('channel.resource_source')?.values).toEqual(['metaIntegration', 'googleIntegration', 'tiktokIntegration']);
    expect(AD_RESOURCE_SOURCES).toEqual(['metaIntegration', 'googleIntegration', 'tiktokIntegration']);
    expect(FILTER_FIELDS.filter((entry) => entry.values).map((entry) => entry.field)).toEqual(['channel.resource_source', 'orders.customer_type']);
  });

  it('offers in and not_in on string fields only, the one kind of array the grammar has', () => {
    for (const entry of FILTER_FIELDS) {
      if (entry.supportedOperators.some((op) => op === 'in' || op === 'not_in')) expect(entry.valueType).toBe('string');
    }
  });

  it('tells clients how names match: exact for equals and in, case-insensitive for the text operators', () => {
    for (const entry of attributes) expect(entry.description).toContain('compare exactly (case-sensitive)');
    for (const field of ['channel.resource_name', 'channel.ad_name']) expect(findFilterField(field)?.description).toContain('ignore case');
  });

  it('finds a field by id and answers undefined for an unknown one', () => {
    expect(findFilterField('channel.ad_name')?.label).toBe('Ad name');
    expect(findFilterField('channel.spend')?.kind).toBe('metric');
    expect(findFilterField('orders.customer_type')?.applicableContexts).toEqual(['query_measures', 'query_attribution']);
    expect(findFilterField('events.name')?.applicableContexts).toEqual(['query_measures']);
    expect(findFilterField('orders.total_revenue')).toBeUndefined();
    expect(findFilterField('constructor')).toBeUndefined();
  });
});
