import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../lib/local/local-api';
import { apiEvent } from '../support/api-event';
import { startFaultInjectingStore, type Fault } from '../support/fault-injecting-store';
import { useFreshTable } from '../support/fresh-table';

/*
 * Analytics requests are priced before anything reads data: over a cap a 400 that gives the
 * estimate and how to narrow it, under it a charge against the key's cost quota. The store is
 * real (dynalite) behind a proxy that records and can slow down each call.
 */
let store: Awaited<ReturnType<typeof startFaultInjectingStore>>;
let handlers: {
  query: typeof import('../../functions/db-mgmt/query').handler;
  mintApiKey: typeof import('../../shared/auth/api-key-service').mintApiKey;
};

beforeAll(async () => {
  await useFreshTable();
  store = await startFaultInjectingStore(process.env.AWS_ENDPOINT_URL_DYNAMODB!);
  // The store client is built when its module loads, from this variable: load the handlers after.
  process.env.AWS_ENDPOINT_URL_DYNAMODB = store.endpoint;
  handlers = {
    query: (await import('../../functions/db-mgmt/query')).handler,
    mintApiKey: (await import('../../shared/auth/api-key-service')).mintApiKey,
  };
});
afterAll(async () => store?.close());

async function query(pixelId: string, apiKey: string, body: Record<string, unknown>, remainingMs = 10_000) {
  const event = apiEvent({ method: 'POST', path: '/db-mgmt/api/query', headers: { 'x-api-key': apiKey, 'x-pixel-id': pixelId }, body: { pixelId, ...body } });
  const deadline = Date.now() + remainingMs;
  const context = { ...lambdaContext('query', event.requestContext.requestId), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
  const response = (await handlers.query(event, context)) as APIGatewayProxyStructuredResultV2;
  return { status: response.statusCode, headers: response.headers ?? {}, body: JSON.parse(response.body!) as { message: string; errors?: Array<{ path: string[] }> } };
}

/** Records every store call from now on, by operation (the tests of this file run one at a time), and applies `fault` to them. */
function watch(fault: Fault = () => undefined): string[] {
  const calls: string[] = [];
  store.inject((call) => {
    calls.push(call.operation);
    return fault(call);
  });
  return calls;
}

const CHANNEL_MEASURES = ['channel.spend', 'channel.impressions', 'channel.clicks', 'channel.roas', 'channel.cpc', 'channel.ctr', 'channel.cpm', 'channel.conversions', 'channel.conversion_value'];
const CHANNEL_DIMENSIONS = ['channel.resource_source', 'channel.account_id', 'channel.campaign_id', 'channel.adset_id', 'channel.ad_id'];

describe('a request priced over a cap', () => {
  it('is refused with 400, the estimate and how to narrow it, before any data is read', async () => {
    const pixelId = 'px_oversize';
    const { apiKey } = await handlers.mintApiKey({ pixelId, scopes: ['analytics:read'] });
    const calls = watch();
    const heapBefore = process.memoryUsage().heapUsed;
    const response = await query(pixelId, apiKey, { measures: CHANNEL_MEASURES, dimensions: CHANNEL_DIMENSIONS, granularity: 'hour', dateRange: { start: '2026-05-01', end: '2026-11-23' } });
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    store.inject(() => undefined);

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/about 17,884,800 values \(9,936 time buckets × 200 series × 9 measures, an answer of about \d+ MB\), more than the 2,000,000 a request may; choose a coarser granularity/);
    expect(response.body.errors).toEqual([{ message: response.body.message, key: '', path: [] }]);
    // Authentication's count of the request is the only kind of store call: nothing was read to price it.
    expect(new Set(calls)).toEqual(new Set(['UpdateItem']));
    // Nothing of the answer was built (the answer it refuses would be hundreds of megabytes).
    expect(heapGrowth).toBeLessThan(50_000_000);
  });

  it('a people measure over two years with its comparison is a 400 that says how to narrow it, not a 503 to retry', async () => {
    const pixelId = 'px_visitors';
    const { apiKey } = await handlers.mintApiKey({ pixelId, scopes: ['analytics:read'] });
    const calls = watch();
    const response = await query(pixelId, apiKey, { measures: ['events.visitors'], granularity: 'day', dateRange: { start: '2024-12-01', end: '2026-11-30' } });
    store.inject(() => undefined);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/every event of 1,460 days one by one .* more than the 120 days a request may; choose a shorter dateRange, leave out the comparison range/);
    expect(new Set(calls)).toEqual(new Set(['UpdateItem']));
    // Narrowed as the answer says, it is answered.
    expect((await query(pixelId, apiKey, { measures: ['events.visitors'], granularity: 'day', dateRange: { start: '2026-11-01', end: '2026-11-30' } })).status).toBe(200);
  });
});

describe('the cost quota', () => {
  it('counts each priced request\u2019s units, reports them beside the request quota, and answers 429 with Retry-After once used up', async () => {
    const pixelId = 'px_cost';
    const { apiKey } = await handlers.mintApiKey({ pixelId, scopes: ['analytics:read'], costLimit: '100/1m' });
    // 90 days by day and the 90 before them, split by sales channel (10 values), 30 measures... priced at 55 units.
    const heavy = { measures: ['orders.orders', 'orders.total_revenue', 'orders.net_revenue', 'orders.refunds', 'orders.average_order_value', 'orders.customers', 'orders.new_customers', 'orders.new_customer_revenue', 'orders.returning_customer_orders', 'orders.returning_customer_revenue'].flatMap((id) => [id]), dimensions: ['orders.source_name', 'orders.customer_type'], granularity: 'day', dateRange: { start: '2026-06-01', end: '2026-08-29' } };
    const first = await query(pixelId, apiKey, heavy);
    expect(first.status).toBe(200);
    // 180 buckets × 30 series × 10 measures = 54,000 values: 1 + 6 units.
    expect(first.headers['ratelimit-policy']).toBe('"api";q=1200;w=60, "cost";q=100;w=60');
    expect(first.headers.ratelimit).toMatch(/^"api";r=1199;t=\d+, "cost";r=93;t=\d+$/);
    const small = { measures: ['orders.orders'], granularity: 'none', dateRange: { start: '2026-06-01', end: '2026-06-30' } };
    let answer = await query(pixelId, apiKey, small);
    for (let sent = 2; answer.status === 200 && sent < 200; sent++) answer = await query(pixelId, apiKey, heavy);
    expect(answer.status).toBe(429);
    expect(answer.body.message).toMatch(/used its cost quota of 100 units per 60 s \(this request costs 7\); retry after \d+ s/);
    expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(answer.headers.ratelimit).toMatch(/"cost";r=0;t=\d+$/);
  });
});

describe('a request that runs out of time', () => {
  const body = { measures: ['events.count', 'orders.orders'], granularity: 'day', dateRange: { start: '2026-06-01', end: '2026-06-30' } };

  it('on its own size (slow reads, none failing) is a 400 that says how to narrow it', { timeout: 30_000 }, async () => {
    const pixelId = 'px_slow_reads';
    const { apiKey } = await handlers.mintApiKey({ pixelId, scopes: ['analytics:read'] });
    // Authentication's two calls (a window to open) are slow but answered within their attempt's
    // time: too little is left for the query's reads.
    let slowed = 0;
    watch((call) => (call.operation === 'UpdateItem' && call.body.includes('APIKEY#') && slowed++ < 2 ? { delayResponseMs: 900 } : undefined));
    const response = await query(pixelId, apiKey, body, 6_000);
    store.inject(() => undefined);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/needs more time than one request may take on this pixel's data; choose a coarser granularity/);
  });

  it('because the store failed to answer is a 503 to retry', { timeout: 30_000 }, async () => {
    const pixelId = 'px_failing_reads';
    const { apiKey } = await handlers.mintApiKey({ pixelId, scopes: ['analytics:read'] });
    // Longer than a read attempt may take: each read of the events' live files times out, a passing fault.
    watch((call) => (call.operation === 'Query' && call.body.includes('#PARQUET#') ? { delayResponseMs: 4_500 } : undefined));
    const response = await query(pixelId, apiKey, body);
    store.inject(() => undefined);
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
  });
});
