import { beforeAll, describe, expect, it } from 'vitest';
import { handler as queryAds } from '../../functions/db-mgmt/query-ads';
import { mintApiKey } from '../../shared/auth/api-key-service';
import type { AdImportInput } from '../../shared/schemas/ad-import';
import { importAds } from '../support/ad-store';
import { apiEvent, invoke } from '../support/api-event';
import { lambdaContext } from '../../lib/local/local-api';
import { useFreshTable } from '../support/fresh-table';

const PATH = '/db-mgmt/api/query-ads';
const PIXEL = 'px_query';
let headers: Record<string, string>;

const hour = (iso: string, metrics: Partial<Record<'spend' | 'impressions' | 'clicks' | 'conversions' | 'conversionValue', number>>) => ({
  hour: iso,
  spend: 0,
  impressions: 0,
  clicks: 0,
  conversions: 0,
  conversionValue: 0,
  ...metrics,
});

function ad(overrides: Partial<AdImportInput> & Pick<AdImportInput, 'platform' | 'adId' | 'adName' | 'currency'>): AdImportInput {
  return {
    accountId: `acc_${overrides.platform}`,
    accountName: `${overrides.platform} account`,
    campaignId: 'camp_1',
    campaignName: 'Spring',
    adsetId: 'set_1',
    adsetName: 'Broad',
    status: 'ACTIVE',
    configuredStatus: 'ACTIVE',
    effectiveStatus: 'ACTIVE',
    dailyBudget: null,
    budgetRemaining: null,
    amountSpent: null,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-03-01T00:00:00Z',
    hourly: [],
    ...overrides,
  };
}

const ALPHA = ad({
  platform: 'meta',
  adId: 'a1',
  adName: 'Alpha Video',
  currency: 'EUR',
  dailyBudget: 40,
  budgetRemaining: 10,
  amountSpent: 100,
  updatedAt: '2026-03-02T10:00:00Z',
  hourly: [
    hour('2026-03-01T10:00:00Z', { spend: 10, impressions: 1000, clicks: 10, conversions: 1, conversionValue: 30 }),
    hour('2026-03-01T11:00:00Z', { spend: 5, impressions: 500, clicks: 5 }),
    hour('2026-03-02T09:00:00Z', { spend: 20, impressions: 2000, conversions: 2, conversionValue: 50 }),
  ],
});
const BRAVO = ad({
  platform: 'google',
  adId: 'b1',
  adName: 'Bravo Search',
  currency: 'USD',
  createdAt: '2026-01-02T00:00:00Z',
  hourly: [hour('2026-03-01T23:00:00Z', { spend: 7, impressions: 100, clicks: 2 }), hour('2026-03-02T01:00:00Z', { spend: 3, impressions: 100 })],
});
const CHARLIE = ad({ platform: 'tiktok', adId: 'c1', adName: 'Charlie Video', currency: 'GBP', status: 'PAUSED', createdAt: '2026-01-03T00:00:00Z' });
// 25 hours, one impression each, across New York's spring-forward day and into the next.
const DELTA = ad({
  platform: 'meta',
  adId: 'd1',
  adName: 'Delta DST',
  currency: 'USD',
  createdAt: '2026-01-04T00:00:00Z',
  hourly: Array.from({ length: 25 }, (_, i) => hour(new Date(Date.parse('2026-03-08T05:00:00Z') + i * 3_600_000).toISOString(), { impressions: 1 })),
});

beforeAll(async () => {
  await useFreshTable();
  await importAds(PIXEL, [ALPHA, BRAVO, CHARLIE, DELTA], [
    { date: '2026-03-01', rates: { USD: 1, EUR: 0.8, GBP: 0.5 } },
    // CAD from March 2 only: converting into it before then has no rate at all.
    { date: '2026-03-02', rates: { USD: 1, EUR: 0.5, CAD: 1.25 } },
  ]);
  const { apiKey } = await mintApiKey({ pixelId: PIXEL, scopes: ['analytics:read'] });
  headers = { 'x-api-key': apiKey, 'x-pixel-id': PIXEL };
});

const query = (body: Record<string, unknown>) => invoke(queryAds, apiEvent({ method: 'POST', path: PATH, headers, body: { pixelId: PIXEL, ...body } }));
const rowsByName = (body: any) => Object.fromEntries(body.rows.map((row: any) => [row.basicDetails.adName, row]));
const MARCH_1_2 = { start: '2026-03-01', end: '2026-03-02' };

describe('query-ads daily series (exact numbers)', () => {
  it('sums each UTC day, converts money at each day\'s rate and derives ratios from the sums', async () => {
    const response = await query({
      measures: ['channel.spend', 'channel.impressions', 'channel.ctr', 'channel.cpc', 'channel.cpm', 'channel.roas', 'meta.spend', 'google.ctr'],
      dateRange: MARCH_1_2,
      sortBy: 'resourceName',
      sortDirection: 'asc',
    });

    expect(response.status).toBe(200);
    const rows = rowsByName(response.body);
    expect(rows['Alpha Video'].data.primary).toEqual([
      // EUR at 0.8 per USD on March 1: 15 EUR = 18.75 USD; ROAS 37.5 / 18.75.
      { dt: '2026-03-01', start: '2026-03-01T00:00:00.000+00:00', end: '2026-03-01T23:59:59.999+00:00', 'channel.spend': 18.75, 'channel.impressions': 1500, 'channel.ctr': 1, 'channel.cpc': 1.25, 'channel.cpm': 12.5, 'channel.roas': 2, 'meta.spend': 18.75, 'google.ctr': null },
      // EUR at 0.5 on March 2; no clicks, so no CPC.
      { dt: '2026-03-02', start: '2026-03-02T00:00:00.000+00:00', end: '2026-03-02T23:59:59.999+00:00', 'channel.spend': 40, 'channel.impressions': 2000, 'channel.ctr': 0, 'channel.cpc': null, 'channel.cpm': 20, 'channel.roas': 2.5, 'meta.spend': 40, 'google.ctr': null },
    ]);
    expect(rows['Bravo Search'].data.primary).toEqual([
      { dt: '2026-03-01', start: '2026-03-01T00:00:00.000+00:00', end: '2026-03-01T23:59:59.999+00:00', 'channel.spend': 7, 'channel.impressions': 100, 'channel.ctr': 2, 'channel.cpc': 3.5, 'channel.cpm': 70, 'channel.roas': 0, 'meta.spend': 0, 'google.ctr': 2 },
      { dt: '2026-03-02', start: '2026-03-02T00:00:00.000+00:00', end: '2026-03-02T23:59:59.999+00:00', 'channel.spend': 3, 'channel.impressions': 100, 'channel.ctr': 0, 'channel.cpc': null, 'channel.cpm': 30, 'channel.roas': 0, 'meta.spend': 0, 'google.ctr': 0 },
    ]);
    // An ad that did not run has an empty series.
    expect(rows['Charlie Video'].data).toEqual({ primary: [] });
  });

  it('writes its body exactly as JSON.stringify writes what it parses to (member order, numbers, null)', async () => {
    const event = apiEvent({
      method: 'POST',
      path: PATH,
      headers,
      body: { pixelId: PIXEL, measures: ['channel.spend', 'channel.ctr', 'channel.cpc', 'channel.roas', 'google.ctr'], dateRange: MARCH_1_2, compareDateRange: { start: '2026-02-27', end: '2026-02-28' }, timezone: 'America/New_York' },
    });
    const result = (await queryAds(event, lambdaContext('test', event.requestContext.requestId))) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(200);
    expect(result.body).toContain('null');
    expect(result.body).toBe(JSON.stringify(JSON.parse(result.body)));
  });

  it('buckets by local day in the requested zone', async () => {
    const response = await query({ measures: ['channel.spend', 'channel.impressions'], dateRange: { start: '2026-03-01', end: '2026-03-01' }, timezone: 'America/New_York' });
    const rows = rowsByName(response.body);
    // March 1 in New York is 05:00Z to 05:00Z next day: Alpha's March 2 hour is outside it,
    // and both of Bravo's hours (18:00 and 20:00 local) fall on March 1.
    expect(rows['Alpha Video'].data.primary).toEqual([
      { dt: '2026-03-01', start: '2026-03-01T00:00:00.000-05:00', end: '2026-03-01T23:59:59.999-05:00', 'channel.spend': 18.75, 'channel.impressions': 1500 },
    ]);
    expect(rows['Bravo Search'].data.primary).toEqual([
      { dt: '2026-03-01', start: '2026-03-01T00:00:00.000-05:00', end: '2026-03-01T23:59:59.999-05:00', 'channel.spend': 10, 'channel.impressions': 200 },
    ]);
  });

  it('gives the spring-forward day in New York its 23 hours', async () => {
    const response = await query({ measures: ['channel.impressions'], dateRange: { start: '2026-03-08', end: '2026-03-09' }, timezone: 'America/New_York' });
    expect(rowsByName(response.body)['Delta DST'].data.primary).toEqual([
      { dt: '2026-03-08', start: '2026-03-08T00:00:00.000-05:00', end: '2026-03-08T23:59:59.999-04:00', 'channel.impressions': 23 },
      { dt: '2026-03-09', start: '2026-03-09T00:00:00.000-04:00', end: '2026-03-09T23:59:59.999-04:00', 'channel.impressions': 2 },
    ]);
  });

  it('clips the first and last day to date-time bounds', async () => {
    const response = await query({ measures: ['channel.impressions'], dateRange: { start: '2026-03-01T10:30:00Z', end: '2026-03-02T00:00:00Z' } });
    // Hours are counted by their start: 10:00 starts before 10:30, so only 11:00 counts for Alpha.
    expect(rowsByName(response.body)['Alpha Video'].data.primary).toEqual([
      { dt: '2026-03-01', start: '2026-03-01T10:30:00.000+00:00', end: '2026-03-01T23:59:59.999+00:00', 'channel.impressions': 500 },
    ]);
  });

  it('converts into another currency, each currency at its own latest rate on or before the hour\'s date', async () => {
    const oneDay = await query({ measures: ['channel.spend', 'channel.impressions'], dateRange: { start: '2026-03-01', end: '2026-03-01' }, currency: 'GBP' });
    const rowsDay1 = rowsByName(oneDay.body);
    // 15 EUR at 0.8 EUR and 0.5 GBP per USD = 9.375 GBP; 7 USD = 3.5 GBP.
    expect(rowsDay1['Alpha Video'].data.primary[0]).toMatchObject({ 'channel.spend': 9.375, 'channel.impressions': 1500 });
    expect(rowsDay1['Bravo Search'].data.primary[0]).toMatchObject({ 'channel.spend': 3.5 });

    // March 2 has rates, but none for GBP: GBP's latest earlier one (0.5, March 1) applies, beside
    // EUR's own March 2 rate (0.5): 20 EUR = 20 GBP. The budgets use each currency's latest rate.
    const twoDays = await query({ measures: ['channel.spend', 'channel.impressions'], dateRange: MARCH_1_2, currency: 'GBP' });
    const alpha = rowsByName(twoDays.body)['Alpha Video'];
    expect(alpha.data.primary.map((point: any) => [point.dt, point['channel.spend'], point['channel.impressions']])).toEqual([
      ['2026-03-01', 9.375, 1500],
      ['2026-03-02', 20, 2000],
    ]);
    expect(alpha.basicDetails).toMatchObject({ currency: 'GBP', nativeCurrency: 'EUR', dailyBudget: 40, budgetRemaining: 10, amountSpent: 100 });
  });

  it('leaves money out of an ad\'s data where an hour has no rate on or before its date, and the rest is answered', async () => {
    // CAD has no rate before March 2: Alpha's March 1 spend cannot be stated, so none of its money is.
    const twoDays = await query({ measures: ['channel.spend', 'channel.impressions'], dateRange: MARCH_1_2, currency: 'CAD' });
    const alpha = rowsByName(twoDays.body)['Alpha Video'];
    expect(alpha.data.primary.map((point: any) => Object.keys(point))).toEqual([
      ['dt', 'start', 'end', 'channel.impressions'],
      ['dt', 'start', 'end', 'channel.impressions'],
    ]);
    // The budgets convert at the latest rates, which CAD has: 40 EUR / 0.5 * 1.25.
    expect(alpha.basicDetails).toMatchObject({ currency: 'CAD', nativeCurrency: 'EUR', dailyBudget: 100 });
    // March 2 alone converts: 20 EUR / 0.5 * 1.25 = 50 CAD.
    const secondDay = await query({ measures: ['channel.spend'], dateRange: { start: '2026-03-02', end: '2026-03-02' }, currency: 'CAD' });
    expect(rowsByName(secondDay.body)['Alpha Video'].data.primary[0]).toMatchObject({ 'channel.spend': 50 });
    // A currency without any rate: no money, and budgets null.
    const noRates = await query({ measures: ['channel.spend', 'channel.impressions'], dateRange: MARCH_1_2, currency: 'JPY' });
    expect(rowsByName(noRates.body)['Alpha Video'].basicDetails).toMatchObject({ currency: 'JPY', dailyBudget: null, budgetRemaining: null, amountSpent: null });
    expect(Object.keys(rowsByName(noRates.body)['Alpha Video'].data.primary[0])).toEqual(['dt', 'start', 'end', 'channel.impressions']);
  });

  it('converts budget fields at the latest rate', async () => {
    const response = await query({});
    // The latest date is March 2, EUR 0.5 per USD.
    expect(rowsByName(response.body)['Alpha Video'].basicDetails).toMatchObject({ currency: 'USD', nativeCurrency: 'EUR', dailyBudget: 80, budgetRemaining: 20, amountSpent: 200 });
  });

  it('adds the comparison series, and drops a comparison range that overlaps the primary one', async () => {
    const compared = await query({ measures: ['channel.impressions'], dateRange: { start: '2026-03-02', end: '2026-03-02' }, compareDateRange: { start: '2026-03-01', end: '2026-03-01' } });
    expect(rowsByName(compared.body)['Alpha Video'].data).toEqual({
      primary: [{ dt: '2026-03-02', start: '2026-03-02T00:00:00.000+00:00', end: '2026-03-02T23:59:59.999+00:00', 'channel.impressions': 2000 }],
      compare: [{ dt: '2026-03-01', start: '2026-03-01T00:00:00.000+00:00', end: '2026-03-01T23:59:59.999+00:00', 'channel.impressions': 1500 }],
    });

    const overlapping = await query({ measures: ['channel.impressions'], dateRange: MARCH_1_2, compareDateRange: { start: '2026-03-02', end: '2026-03-03' } });
    expect(overlapping.status).toBe(200);
    expect(Object.keys(rowsByName(overlapping.body)['Alpha Video'].data)).toEqual(['primary']);
  });
});

describe('query-ads listing', () => {
  it('lists without a data key when no measures are asked for, with the documented basic details', async () => {
    const response = await query({ sortBy: 'sourceCreatedAt', sortDirection: 'asc', limit: 2 });
    expect(response.body).toEqual({
      rows: [
        {
          basicDetails: {
            platform: 'meta', resourceSource: 'metaIntegration', accountId: 'acc_meta', accountName: 'meta account', campaignId: 'camp_1',
            campaignName: 'Spring', adsetId: 'set_1', adsetName: 'Broad', adId: 'a1', adName: 'Alpha Video', resourceName: 'Alpha Video',
            status: 'ACTIVE', configuredStatus: 'ACTIVE', effectiveStatus: 'ACTIVE', currency: 'USD', nativeCurrency: 'EUR',
            dailyBudget: 80, budgetRemaining: 20, amountSpent: 200, sourceCreatedAt: '2026-01-01T00:00:00.000Z', sourceUpdatedAt: '2026-03-02T10:00:00.000Z',
          },
        },
        { basicDetails: expect.objectContaining({ adName: 'Bravo Search' }) },
      ],
      pagination: { limit: 2, offset: 0, total: 4, hasMore: true },
    });
  });

  it('filters on attributes and on metric totals over dateRange', async () => {
    const byStatus = await query({ filters: { field: 'channel.resource_status', op: 'equals', value: 'PAUSED' } });
    expect(byStatus.body!.rows.map((row: any) => row.basicDetails.adName)).toEqual(['Charlie Video']);

    // Totals in USD over March 1-2: Alpha 58.75, Bravo 10, Charlie and Delta 0.
    const bySpend = await query({ dateRange: MARCH_1_2, filters: { and: [{ field: 'channel.spend', op: 'greater_than', value: 20 }] } });
    expect(bySpend.body!.rows.map((row: any) => row.basicDetails.adName)).toEqual(['Alpha Video']);
    expect(bySpend.body!.pagination.total).toBe(1);

    const mixedInAnd = await query({
      dateRange: MARCH_1_2,
      filters: { and: [{ field: 'channel.resource_source', op: 'in', value: ['googleIntegration', 'metaIntegration'] }, { field: 'channel.clicks', op: 'less_than', value: 5 }] },
      sortBy: 'resourceName',
      sortDirection: 'asc',
    });
    expect(mixedInAnd.body!.rows.map((row: any) => row.basicDetails.adName)).toEqual(['Bravo Search', 'Delta DST']);
  });
});

describe('query-ads paging', () => {
  it('walks every page of a filtered listing with no row repeated or skipped', async () => {
    // Prepare: 23 ads matching the filter, many sharing one updatedAt, plus 7 that do not match.
    const pixel = 'px_paging';
    const many = Array.from({ length: 30 }, (_, i) =>
      ad({ platform: (['meta', 'google', 'tiktok'] as const)[i % 3]!, adId: `p${String(i).padStart(2, '0')}`, adName: i < 23 ? `Video ${i % 4}` : `Static ${i}`, currency: 'USD', updatedAt: `2026-03-0${1 + (i % 2)}T00:00:00Z` }),
    );
    await importAds(pixel, many);
    const { apiKey } = await mintApiKey({ pixelId: pixel, scopes: ['db_query'] });
    const page = (offset: number) =>
      invoke(queryAds, apiEvent({ method: 'POST', path: PATH, headers: { 'x-api-key': apiKey, 'x-pixel-id': pixel }, body: { pixelId: pixel, limit: 5, offset, filters: { field: 'channel.ad_name', op: 'contains', value: 'video' } } }));

    // Act
    const seen: string[] = [];
    let offset = 0;
    for (;;) {
      const { body } = await page(offset);
      expect(body!.pagination).toMatchObject({ limit: 5, offset, total: 23 });
      seen.push(...body!.rows.map((row: any) => `${row.basicDetails.platform}#${row.basicDetails.adId}`));
      if (!body!.pagination.hasMore) break;
      offset += 5;
    }

    // Assess: 23 distinct ads, newest first, ties in ad order.
    expect(seen).toHaveLength(23);
    expect(new Set(seen).size).toBe(23);
    const expected = many
      .slice(0, 23)
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || `${a.platform}#${a.adId}`.localeCompare(`${b.platform}#${b.adId}`))
      .map((a) => `${a.platform}#${a.adId}`);
    expect(seen).toEqual(expected);
    expect((await page(25)).body).toMatchObject({ rows: [], pagination: { total: 23, hasMore: false } });
  });
});

describe('query-ads validation', () => {
  const issuePaths = (body: any) => body.errors.map((issue: any) => issue.path.join('.'));

  it.each([
    ['an unsupported measure, naming every one', { measures: ['channel.spend', 'orders.total_revenue', 'core.mer'] }, 'measures', /orders\.total_revenue, core\.mer/],
    ['measures without dateRange', { measures: ['channel.spend'] }, 'dateRange', /required/],
    ['compareDateRange without measures', { dateRange: MARCH_1_2, compareDateRange: MARCH_1_2 }, 'compareDateRange', /requires measures/],
    ['31 measures', { measures: Array.from({ length: 31 }, () => 'channel.spend'), dateRange: MARCH_1_2 }, 'measures', /30/],
    ['limit 0', { limit: 0 }, 'limit', /./],
    ['limit 501', { limit: 501 }, 'limit', /./],
    ['a negative offset', { offset: -1 }, 'offset', /./],
    ['an upper-case sortDirection', { sortDirection: 'DESC' }, 'sortDirection', /./],
    ['an unknown sortBy', { sortBy: 'spend' }, 'sortBy', /./],
    ['an unknown time zone', { timezone: 'Mars/Base' }, 'timezone', /IANA/],
    ['an unknown currency', { currency: 'XYZ' }, 'currency', /ISO 4217/],
    ['an end before the start', { measures: ['channel.spend'], dateRange: { start: '2026-03-02', end: '2026-03-01' } }, 'dateRange.end', /after/],
    ['an impossible date', { measures: ['channel.spend'], dateRange: { start: '2026-02-30', end: '2026-03-01' } }, 'dateRange.start', /date/],
    ['an orders field', { filters: { field: 'orders.customer_type', op: 'equals', value: 'new' } }, 'filters.field', /orders\.customer_type.*query_ads/],
    ['an or group mixing attributes and metrics', { dateRange: MARCH_1_2, filters: { or: [{ field: 'channel.ad_name', op: 'contains', value: 'x' }, { field: 'channel.spend', op: 'greater_than', value: 1 }] } }, 'filters', /mix/i],
    ['a metric filter without dateRange', { filters: { field: 'channel.spend', op: 'greater_than', value: 1 } }, 'dateRange', /required/],
    ['an unknown key', { page: 2 }, 'page', /Unknown key/],
  ])('rejects %s with 400', async (_, body, path, message) => {
    const response = await query(body);
    expect(response.status).toBe(400);
    expect(issuePaths(response.body)).toContain(path);
    expect(response.body!.errors.find((issue: any) => issue.path.join('.') === path).message).toMatch(message);
  });

  // Issue P5: each of these reached the range rules and answered 500.
  const badZones = ['Mars/Phobos', 'UTC+1', '', 'Europe/Paris '].map((timezone): [string, Record<string, unknown>, string] => [
    `the time zone ${JSON.stringify(timezone)}`,
    { measures: ['channel.spend'], dateRange: MARCH_1_2, timezone },
    'timezone',
  ]);
  const badBounds = ['2026-11-1', 'garbage', '11/01/2026', '2026-11-01 00:00', '2026-11-01T00:00+25:00'].map((start): [string, Record<string, unknown>, string] => [
    `the bound ${JSON.stringify(start)}`,
    { measures: ['channel.spend'], dateRange: { start, end: '2026-11-07' }, compareDateRange: { start, end: '2026-10-07' } },
    'dateRange.start',
  ]);
  it.each([...badZones, ...badBounds])('answers %s with a 400 naming that field alone', async (_, body, path) => {
    const response = await query(body);
    expect(response.status).toBe(400);
    expect(issuePaths(response.body)).toEqual(path === 'timezone' ? ['timezone'] : ['dateRange.start', 'compareDateRange.start']);
  });

  it('refuses a body pixelId other than the header with 403', async () => {
    const response = await invoke(queryAds, apiEvent({ method: 'POST', path: PATH, headers, body: { pixelId: 'px_someone_else' } }));
    expect(response.status).toBe(403);
  });

  it('requires analytics:read, which the legacy scopes grant', async () => {
    const { apiKey } = await mintApiKey({ pixelId: PIXEL, scopes: ['dashboards:read'] });
    const forbidden = await invoke(queryAds, apiEvent({ method: 'POST', path: PATH, headers: { 'x-api-key': apiKey, 'x-pixel-id': PIXEL }, body: { pixelId: PIXEL } }));
    expect(forbidden.status).toBe(403);
    const legacy = await mintApiKey({ pixelId: PIXEL, scopes: ['attribution_query'] });
    const allowed = await invoke(queryAds, apiEvent({ method: 'POST', path: PATH, headers: { 'x-api-key': legacy.apiKey, 'x-pixel-id': PIXEL }, body: { pixelId: PIXEL } }));
    expect(allowed.status).toBe(200);
  });
});

describe('query-ads zones and formats', () => {
  const pixel = 'px_paths';
  let pathHeaders: Record<string, string>;
  const ask = (body: Record<string, unknown>) =>
    invoke(queryAds, apiEvent({ method: 'POST', path: PATH, headers: pathHeaders, body: { pixelId: pixel, measures: ['channel.impressions'], ...body } }));
  const impressionsOf = (response: any) => response.body.rows[0].data.primary.map((point: any) => [point.dt, point['channel.impressions']]);

  beforeAll(async () => {
    await importAds(pixel, [DELTA]);
    pathHeaders = { 'x-api-key': (await mintApiKey({ pixelId: pixel, scopes: ['analytics:read'] })).apiKey, 'x-pixel-id': pixel };
  });

  it('buckets the same hours into the local days of any zone, and clips date-time bounds', async () => {
    const utc = await ask({ dateRange: { start: '2026-03-08', end: '2026-03-09' } });
    const kolkata = await ask({ dateRange: { start: '2026-03-08', end: '2026-03-09' }, timezone: 'Asia/Kolkata' });
    const newYork = await ask({ dateRange: { start: '2026-03-08', end: '2026-03-09' }, timezone: 'America/New_York' });
    expect(impressionsOf(utc)).toEqual([['2026-03-08', 19], ['2026-03-09', 6]]);
    // 05:00Z is 10:30 in Kolkata: the 19 hours from 05:00Z to 23:00Z start on March 8 there.
    expect(impressionsOf(kolkata)).toEqual([['2026-03-08', 14], ['2026-03-09', 11]]);
    expect(impressionsOf(newYork)).toEqual([['2026-03-08', 23], ['2026-03-09', 2]]);
    // From 06:00Z: the 05:00 hour starts before the range.
    expect(impressionsOf(await ask({ dateRange: { start: '2026-03-08T06:00:00Z', end: '2026-03-09T00:00:00Z' } }))).toEqual([['2026-03-08', 18]]);
  });

  it('answers the columnar format with one array per measure per ad, indexed into one calendar', async () => {
    const response: any = await ask({ measures: ['channel.impressions', 'channel.ctr'], dateRange: { start: '2026-03-07', end: '2026-03-09' }, format: 'columnar' });
    expect(response.status).toBe(200);
    expect(response.body.format).toBe('columnar');
    expect(response.body.calendar).toEqual({
      primary: {
        dt: ['2026-03-07', '2026-03-08', '2026-03-09'],
        start: ['2026-03-07T00:00:00.000+00:00', '2026-03-08T00:00:00.000+00:00', '2026-03-09T00:00:00.000+00:00'],
        end: ['2026-03-07T23:59:59.999+00:00', '2026-03-08T23:59:59.999+00:00', '2026-03-09T23:59:59.999+00:00'],
      },
    });
    // March 7 has no data, so it is not listed.
    expect(response.body.rows[0].data).toEqual({ primary: { day: [1, 2], 'channel.impressions': [19, 6], 'channel.ctr': [0, 0] } });
  });
});
