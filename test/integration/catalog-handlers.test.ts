import { beforeAll, describe, expect, it } from 'vitest';
import { handler as getFilters } from '../../functions/db-mgmt/get-filters';
import { handler as getMeasures } from '../../functions/db-mgmt/get-measures';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { SCOPES } from '../../shared/auth/scopes';
import { FILTER_FIELDS } from '../../shared/catalog/filter-fields';
import { DIMENSIONS } from '../../shared/catalog/dimensions';
import { AD_MEASURE_IDS, MEASURES } from '../../shared/catalog/measures';
import { apiEvent, invoke } from '../support/api-event';
import { useFreshTable } from '../support/fresh-table';

const PIXEL = 'px_catalogs';
const MEASURES_PATH = '/db-mgmt/api/measures';
const FILTERS_PATH = '/db-mgmt/api/filters';

beforeAll(async () => {
  await useFreshTable();
});

async function headersFor(scopes: string[], pixelId = PIXEL) {
  const { apiKey } = await mintApiKey({ pixelId, scopes });
  return { 'x-api-key': apiKey, 'x-pixel-id': pixelId };
}

const measures = (headers: Record<string, string>, query = '') =>
  invoke(getMeasures, apiEvent({ method: 'GET', path: MEASURES_PATH + query, routePath: MEASURES_PATH, headers }));
const filters = (headers: Record<string, string>, query = '') =>
  invoke(getFilters, apiEvent({ method: 'GET', path: FILTERS_PATH + query, routePath: FILTERS_PATH, headers }));

describe('GET /db-mgmt/api/measures', () => {
  it.each([...SCOPES, 'db_query'])('answers the whole catalog to a key with only %s: the route is ungated', async (scope) => {
    const response = await measures(await headersFor([scope]));

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ measures: JSON.parse(JSON.stringify(MEASURES)), dimensions: JSON.parse(JSON.stringify(DIMENSIONS)) });
  });

  it('describes each measure with what a client needs to show it', async () => {
    const { body } = await measures(await headersFor(['events:write']));

    expect(body!.measures.find((m: { id: string }) => m.id === 'meta.cpm')).toEqual({
      id: 'meta.cpm',
      namespace: 'meta',
      title: 'Meta cost per thousand impressions',
      shortTitle: 'Meta CPM',
      description: expect.stringContaining('Spend ÷ impressions × 1000 on Meta'),
      format: 'currency',
      isAverage: true,
      isPercentage: false,
      preferredTrendDirection: 'down',
      contexts: ['query', 'query_ads', 'dashboards'],
    });
  });

  it('answers 401 without a key, and with a key of another pixel', async () => {
    expect((await measures({ 'x-pixel-id': PIXEL })).status).toBe(401);
    expect((await measures(await headersFor(['analytics:read'], 'px_elsewhere').then((h) => ({ ...h, 'x-pixel-id': PIXEL })))).status).toBe(401);
  });

  it('narrows by ?search, every word anywhere in the id, titles or description, ignoring case', async () => {
    const headers = await headersFor(['analytics:read']);

    const ids = async (query: string) => (await measures(headers, query)).body!.measures.map((m: { id: string }) => m.id);

    expect(await ids('?search=meta%20cpm')).toEqual(['meta.cpm']);
    expect(await ids('?search=ROAS')).toEqual(['core.roas', 'core.new_customer_roas', 'attribution.roas', 'channel.roas']);
    expect(await ids('?search=TikTok')).toEqual(AD_MEASURE_IDS.filter((id) => id.startsWith('tiktok.')));
    expect(await ids('?search=no-such-measure')).toEqual([]);
    expect(await ids('?search=')).toEqual(MEASURES.map((measure) => measure.id));
  });

  it('narrows by ?context', async () => {
    const response = await measures(await headersFor(['analytics:read']), '?context=dashboards');
    expect(response.body!.measures).toHaveLength(MEASURES.filter((measure) => measure.contexts.includes('dashboards')).length);
    const cohort = await measures(await headersFor(['analytics:read']), '?context=query_cohort');
    expect(cohort.body!.measures.map((measure: { id: string }) => measure.id)).toEqual([
      'orders.customers_cohort',
      'orders.ltv_cohort_gross_revenue',
      'orders.ltv_cohort_net_revenue',
      'orders.avg_order_value_cohort',
      'orders.cohort_retention_percent',
      'orders.cohort_cm1',
      'orders.cohort_cm2',
    ]);
  });

  it.each([
    ['an unknown context', '?context=query_journeys', ['query', 'context']],
    ['a misspelt parameter', '?serach=cpm', ['query', 'serach']],
    ['an over-long search', `?search=${'x'.repeat(101)}`, ['query', 'search']],
  ])('answers 400 to %s, locating it under query', async (_, query, path) => {
    const response = await measures(await headersFor(['analytics:read']), query);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: 'Request validation failed', errors: [expect.objectContaining({ path })] });
  });
});

describe('GET /db-mgmt/api/filters', () => {
  it('answers the whole catalog to an analytics:read key', async () => {
    const response = await filters(await headersFor(['analytics:read']));

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ fields: JSON.parse(JSON.stringify(FILTER_FIELDS)) });
  });

  it('shows each field with the members of spec 2.6, its kind, and the values of a closed set', async () => {
    const { body } = await filters(await headersFor(['analytics:read']));
    const byField = (field: string) => body!.fields.find((entry: { field: string }) => entry.field === field);

    expect(byField('channel.resource_source')).toEqual({
      field: 'channel.resource_source',
      label: 'Ad platform',
      valueType: 'string',
      supportedOperators: ['equals', 'not_equals', 'in', 'not_in'],
      applicableContexts: ['query_ads', 'query_measures'],
      description: expect.any(String),
      kind: 'attribute',
      values: ['metaIntegration', 'googleIntegration', 'tiktokIntegration'],
    });
    expect(byField('channel.roas')).toEqual({
      field: 'channel.roas',
      label: 'Return on ad spend',
      valueType: 'number',
      supportedOperators: ['equals', 'not_equals', 'greater_than', 'greater_than_or_equals', 'less_than', 'less_than_or_equals'],
      applicableContexts: ['query_ads'],
      description: expect.stringContaining("over the whole of the request's dateRange"),
      kind: 'metric',
    });
  });

  it('answers 200 to a legacy db_query key, which means analytics:read', async () => {
    expect((await filters(await headersFor(['db_query']))).status).toBe(200);
    expect((await filters(await headersFor(['attribution_query']))).status).toBe(200);
  });

  it.each(SCOPES.filter((scope) => scope !== 'analytics:read'))('answers 403 to a key with only %s', async (scope) => {
    const response = await filters(await headersFor([scope]));
    expect(response).toMatchObject({ status: 403, body: { message: "This API key does not have the 'analytics:read' scope" } });
  });

  it('answers 401 without a key', async () => {
    expect((await filters({ 'x-pixel-id': PIXEL })).status).toBe(401);
    expect((await filters({})).status).toBe(401);
  });

  it('narrows by ?context and ?search, for an agent looking for a field', async () => {
    const headers = await headersFor(['analytics:read']);
    const fieldsFor = async (query: string) => (await filters(headers, query)).body!.fields.map((entry: { field: string }) => entry.field);

    expect(await fieldsFor('?context=query_ads')).toEqual(FILTER_FIELDS.filter((entry) => entry.applicableContexts.includes('query_ads')).map((entry) => entry.field));
    expect(await fieldsFor('?search=Campaign%20NAME')).toEqual(['channel.campaign_name']);
    expect(await fieldsFor('?search=ad%20set%20name')).toEqual(['channel.adset_name']);
    expect(await fieldsFor('?context=query_ads&search=google%20cpc')).toEqual(['google.cpc']);
  });

  it('answers 400 to a context it does not know, listing none of the fields', async () => {
    const response = await filters(await headersFor(['analytics:read']), '?context=orders');
    expect(response.status).toBe(400);
    expect(response.body!.errors).toEqual([expect.objectContaining({ key: 'context', path: ['query', 'context'] })]);
  });
});
