import { describe, expect, it } from 'vitest';
import { AD_ATTRIBUTE_FIELDS } from '../../shared/ads/ad-details';
import { FILTER_FIELDS } from '../../shared/catalog/filter-fields';

describe('ad attribute fields', () => {
  it('reads every attribute field the filter catalog offers for query_ads, and no other', () => {
    const catalogued = FILTER_FIELDS.filter((entry) => entry.kind === 'attribute' && entry.applicableContexts.includes('query_ads')).map((entry) => entry.field);
    expect(Object.keys(AD_ATTRIBUTE_FIELDS).sort()).toEqual([...catalogued].sort());
  });
});
