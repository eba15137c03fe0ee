import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startLocalServer, type RunningServer } from '../support/local-server';

let server: RunningServer;
let demo: Record<string, string>;

beforeAll(async () => {
  server = await startLocalServer();
  // The first start prints a key with every scope for the demo pixel: enough for a catalog read.
  const demoKey = /x-api-key:\s+(upstack_\S+)/.exec(server.output())?.[1];
  demo = { 'x-api-key': demoKey!, 'x-pixel-id': 'px_demo' };
});
afterAll(async () => {
  await server?.stop();
});

describe('the catalogs through the local server', () => {
  it('lists the measures, the ids a client sends in query-ads measures', async () => {
    const response = await call(server, 'GET', '/db-mgmt/api/measures', { headers: demo });

    expect(response.status).toBe(200);
    expect(response.body.measures.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining(['channel.spend', 'meta.cpm', 'tiktok.ctr']));
  });

  it('lists the filter fields of query_ads, searchable', async () => {
    const response = await call(server, 'GET', '/db-mgmt/api/filters?context=query_ads&search=ad_name', { headers: demo });

    expect(response.status).toBe(200);
    expect(response.body.fields.map((f: { field: string }) => f.field)).toEqual(['channel.ad_name']);
  });

  it('answers 401 without a key and 400 to an unknown query parameter', async () => {
    expect((await call(server, 'GET', '/db-mgmt/api/filters')).status).toBe(401);
    const response = await call(server, 'GET', '/db-mgmt/api/measures?q=spend', { headers: demo });
    expect(response).toMatchObject({ status: 400, body: { errors: [{ key: 'q', path: ['query', 'q'] }] } });
  });

  it('answers 405 with Allow: GET to another method on a catalog path', async () => {
    const response = await call(server, 'POST', '/db-mgmt/api/measures', { headers: demo, body: {} });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });
});
