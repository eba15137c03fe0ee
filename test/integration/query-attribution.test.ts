import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as queryAttribution } from '../../functions/db-mgmt/query-attribution';
import { handler as ingestEvents } from '../../functions/tr/ingest-events';
import { journeyProjector } from '../../shared/attribution/journey-projector';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { importOrdersFile } from '../../shared/orders/import-orders';
import { rebuildReadModels } from '../../shared/pipeline/rebuild-read-models';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { importAds } from '../support/ad-store';
import { apiEvent, invoke } from '../support/api-event';
import { wholeTable } from '../support/event-store';
import { useFreshTable } from '../support/fresh-table';
import { drainPipeline } from '../support/pipeline';

const PIXEL = 'px_attr';
const NOW = new Date('2026-03-25T12:00:00.000Z');
let readHeaders: Record<string, string>;
let writeHeaders: Record<string, string>;

const ingest = (body: unknown) => invoke(ingestEvents, apiEvent({ method: 'POST', path: '/tr/api/events', headers: writeHeaders, body, now: NOW }));
const query = (body: Record<string, unknown>, headers = readHeaders) =>
  invoke(queryAttribution, apiEvent({ method: 'POST', path: '/db-mgmt/api/query-attribution', headers, body: { pixelId: PIXEL, dateRange: { start: '2026-03-01', end: '2026-03-24' }, ...body } }));

const META_AD = 'https://shop.example/?utm_source=facebook&utm_medium=paid&utm_campaign=spring&campaign_id=c1&adset_id=s1&ad_id=ad1';

beforeAll(async () => {
  await useFreshTable();
  writeHeaders = await mintApiKey({ pixelId: PIXEL, scopes: ['events:write'] }).then(({ apiKey }) => ({ 'x-api-key': apiKey, 'x-pixel-id': PIXEL }));
  readHeaders = await mintApiKey({ pixelId: PIXEL, scopes: ['analytics:read'] }).then(({ apiKey }) => ({ 'x-api-key': apiKey, 'x-pixel-id': PIXEL }));

  // A browser arrives from a Meta ad, comes back from a search, signs up (browser ↔ email) and
  // later logs in (email ↔ account); the account's order is imported. A retried request repeats the ad visit.
  const adVisit = { name: 'page_view', eventId: 'v-ad', timestamp: '2026-03-06T12:00:00Z', user: { anonymousId: 'A1' }, page: { url: META_AD } };
  expect((await ingest({ events: [adVisit] })).status).toBe(200);
  expect(
    (
      await ingest({
        events: [
          adVisit,
          { name: 'sign_up', eventId: 'v-signup', timestamp: '2026-03-07T08:00:00Z', user: { anonymousId: 'A1', emails: ['Buyer@Example.com'] }, page: { url: 'https://shop.example/signup' } },
          { name: 'page_view', eventId: 'v-search', timestamp: '2026-03-13T12:00:00Z', user: { anonymousId: 'A1' }, page: { url: 'https://shop.example/shoes', referrer: 'https://www.google.com/' } },
          { name: 'login', eventId: 'v-login', timestamp: '2026-03-20T11:00:00Z', user: { emails: ['buyer@example.com'], userIds: ['u1'] }, page: { url: 'https://shop.example/account' } },
          // Another visitor's ad click, never followed by an order of theirs.
          { name: 'page_view', eventId: 'v-other', timestamp: '2026-03-10T12:00:00Z', user: { anonymousId: 'B2' }, page: { url: META_AD } },
        ],
      })
    ).status,
  ).toBe(200);
  await drainPipeline();

  const file = join(mkdtempSync(join(tmpdir(), 'attribution-')), 'orders.ndjson');
  writeFileSync(
    file,
    [
      { orderId: 'o1', orderDate: '2026-03-20T12:00:00Z', value: 90, currency: 'EUR', customer: { userIds: ['u1'] } },
      { orderId: 'o2', orderDate: '2026-03-15T09:00:00Z', value: 10, currency: 'USD' },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n'),
  );
  await importOrdersFile(PIXEL, file);
  await importAds(PIXEL, [
    {
      platform: 'meta', accountId: 'act', accountName: 'Main', campaignId: 'c1', campaignName: 'Spring', adsetId: 's1', adsetName: 'Broad', adId: 'ad1', adName: 'Video',
      status: 'ACTIVE', configuredStatus: 'ACTIVE', effectiveStatus: 'ACTIVE', currency: 'EUR', dailyBudget: null, budgetRemaining: null, amountSpent: null,
      createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-03-01T00:00:00Z',
      hourly: [{ hour: '2026-03-06T10:00:00Z', spend: 30, impressions: 1000, clicks: 20, conversions: 0, conversionValue: 0 }],
    },
  ], [{ date: '2026-01-01', rates: { USD: 1, EUR: 0.9 } }]);
});

const BODY = {
  dimension: 'channel.campaign_id',
  attributionModel: ['first_click', 'linear'],
  measures: ['attribution.orders', 'attribution.revenue', 'channel.spend', 'attribution.roas'],
};

const EXPECTED = [
  {
    attributionModel: 'first_click',
    primary: [
      { 'channel.campaign_id': null, 'attribution.orders': 1, 'attribution.revenue': 10, 'channel.spend': 0, 'attribution.roas': null },
      // 90 EUR = 100 USD earned, 30 EUR = 33.33 USD spent.
      { 'channel.campaign_id': 'c1', 'attribution.orders': 1, 'attribution.revenue': 100, 'channel.spend': 33.333333, 'attribution.roas': 3 },
    ],
  },
  {
    attributionModel: 'linear',
    primary: [
      // o2 whole and half of o1: the search visit; the ad visit counts once (its retried delivery is no second touchpoint).
      { 'channel.campaign_id': null, 'attribution.orders': 1.5, 'attribution.revenue': 60, 'channel.spend': 0, 'attribution.roas': null },
      { 'channel.campaign_id': 'c1', 'attribution.orders': 0.5, 'attribution.revenue': 50, 'channel.spend': 33.333333, 'attribution.roas': 1.5 },
    ],
  },
];

const summary = (body: Record<string, any>) =>
  body.results.map((result: Record<string, any>) => ({
    attributionModel: result.attributionModel,
    primary: result.data.primary.map(({ dt: _dt, start: _start, end: _end, ...rest }: Record<string, unknown>) => rest),
  }));

describe('POST /db-mgmt/api/query-attribution over the stored read models', () => {
  it('stitches anonymous id → email → user id, credits each model, joins spend by campaign', async () => {
    const response = await query(BODY);
    expect(response.status).toBe(200);
    expect(summary(response.body!)).toEqual(EXPECTED);
    expect(response.body!.results[0]).toMatchObject({ attributionWindow: 30, dimension: 'channel.campaign_id', granularity: 'none', currency: 'USD', timezone: 'UTC', compareDateRange: null });
  });

  it('gives the same answer after the journeys are dropped and rebuilt from the stored events and orders', async () => {
    const journeyItems = (await wholeTable()).filter((item) => String(item.PK).startsWith(`PIXEL#${PIXEL}#AJ`));
    expect(journeyItems.length).toBeGreaterThan(0);
    for (const item of journeyItems) await documentClient.send(new DeleteCommand({ TableName: tableName(), Key: { PK: item.PK, SK: item.SK } }));
    expect(summary((await query(BODY)).body!)[0].primary).toEqual([
      { 'channel.campaign_id': null, 'attribution.orders': 2, 'attribution.revenue': 110, 'channel.spend': 0, 'attribution.roas': null },
      { 'channel.campaign_id': 'c1', 'attribution.orders': 0, 'attribution.revenue': 0, 'channel.spend': 33.333333, 'attribution.roas': 0 },
    ]);
    await rebuildReadModels(PIXEL, { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-03-25T00:00:00Z') }, [journeyProjector]);
    expect(summary((await query(BODY)).body!)).toEqual(EXPECTED);
  });

  it('counts an order as a new customer\'s only when no earlier counted order of that customer is stored, whatever its date', async () => {
    const newOrders = async () => {
      const response = await query({ dimension: 'source', attributionModel: 'last_click', measures: ['attribution.new_customer_orders', 'attribution.new_customer_revenue'] });
      expect(response.status).toBe(200);
      const points = response.body!.results[0].data.primary as Array<Record<string, number>>;
      return points.reduce((sum, point) => sum + point['attribution.new_customer_orders']!, 0);
    };
    // o1 (the account u1's first order) and o2 (no identity: a customer of its own) are both new.
    expect(await newOrders()).toBe(2);
    // An order of u1 a month before the range makes o1 a returning customer's order.
    const file = join(mkdtempSync(join(tmpdir(), 'attribution-')), 'earlier.ndjson');
    writeFileSync(file, JSON.stringify({ orderId: 'o0', orderDate: '2026-02-01T12:00:00Z', value: 5, currency: 'USD', customer: { userIds: ['u1'] } }));
    await importOrdersFile(PIXEL, file);
    expect(await newOrders()).toBe(1);
  });

  it('answers 400 naming the measure and the dimension when spend cannot be joined, 403 for another pixel', async () => {
    const bad = await query({ dimension: 'utm_source', measures: ['attribution.roas'] });
    expect(bad.status).toBe(400);
    expect(bad.body!.errors).toEqual([
      {
        key: '0',
        path: ['measures', '0'],
        message: "Measure 'attribution.roas' needs ad spend, which cannot be joined to dimension 'utm_source'; use dimension source, channel.campaign_id, channel.adset_id or channel.ad_id",
      },
    ]);
    expect((await invoke(queryAttribution, apiEvent({ method: 'POST', path: '/db-mgmt/api/query-attribution', headers: readHeaders, body: { pixelId: 'px_other', dateRange: { start: '2026-03-01', end: '2026-03-02' } } }))).status).toBe(403);
    expect((await query({}, writeHeaders)).status).toBe(403);
  });
});

describe('order journeys kept by the projector as persons merge and orders move', () => {
  const MERGE_PIXEL = 'px_attr_merge';
  let headers: { read: Record<string, string>; write: Record<string, string> };
  const send = (body: unknown) => invoke(ingestEvents, apiEvent({ method: 'POST', path: '/tr/api/events', headers: headers.write, body, now: NOW }));
  const credits = async () => {
    const response = await invoke(
      queryAttribution,
      apiEvent({
        method: 'POST',
        path: '/db-mgmt/api/query-attribution',
        headers: headers.read,
        body: { pixelId: MERGE_PIXEL, dateRange: { start: '2026-03-01', end: '2026-03-24' }, dimension: 'channel.campaign_id', measures: ['attribution.orders'] },
      }),
    );
    expect(response.status).toBe(200);
    return (response.body!.results[0].data.primary as Array<Record<string, unknown>>).map((point) => [point['channel.campaign_id'], point['attribution.orders']]);
  };
  const filedDays = async () =>
    (await wholeTable())
      .filter((item) => item.PK === `PIXEL#${MERGE_PIXEL}#AJ#` && String(item.SK).startsWith('DAY#') && Object.hasOwn((item.jo ?? {}) as object, 'm1'))
      .map((item) => String(item.SK).slice(4, 14));

  beforeAll(async () => {
    headers = {
      write: await mintApiKey({ pixelId: MERGE_PIXEL, scopes: ['events:write'] }).then(({ apiKey }) => ({ 'x-api-key': apiKey, 'x-pixel-id': MERGE_PIXEL })),
      read: await mintApiKey({ pixelId: MERGE_PIXEL, scopes: ['analytics:read'] }).then(({ apiKey }) => ({ 'x-api-key': apiKey, 'x-pixel-id': MERGE_PIXEL })),
    };
  });

  it('credits an order to a browser linked to its buyer only after the order, files a moved order under its new day only', async () => {
    // The order is placed by an email the pixel has never seen with a browser; a browser came from an ad before.
    expect((await send({ events: [{ name: 'purchase', eventId: 'm-buy', timestamp: '2026-03-12T10:00:00Z', user: { emails: ['late@example.com'] }, data: { orderId: 'm1', value: 40, currency: 'USD' } }] })).status).toBe(200);
    expect((await send({ events: [{ name: 'page_view', eventId: 'm-ad', timestamp: '2026-03-08T10:00:00Z', user: { anonymousId: 'M1' }, page: { url: META_AD } }] })).status).toBe(200);
    await drainPipeline();
    expect(await credits()).toEqual([[null, 1]]);
    expect(await filedDays()).toEqual(['2026-03-12']);

    // Days later the browser signs in with that email: one person, whose ad visit now takes the order.
    expect((await send({ events: [{ name: 'login', eventId: 'm-login', timestamp: '2026-03-20T10:00:00Z', user: { anonymousId: 'M1', emails: ['late@example.com'] } }] })).status).toBe(200);
    await drainPipeline();
    expect(await credits()).toEqual([['c1', 1]]);

    // The order export says the order was placed two days later: its journey moves to that day.
    const file = join(mkdtempSync(join(tmpdir(), 'attribution-')), 'moved.ndjson');
    writeFileSync(file, JSON.stringify({ orderId: 'm1', orderDate: '2026-03-14T10:00:00Z', value: 40, currency: 'USD', customer: { emails: ['late@example.com'] } }));
    await importOrdersFile(MERGE_PIXEL, file);
    expect(await filedDays()).toEqual(['2026-03-14']);
    expect(await credits()).toEqual([['c1', 1]]);
  });
});
