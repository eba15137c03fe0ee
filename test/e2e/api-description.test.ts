import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../lib/openapi/build-document';
import { call, mintKey, startLocalServer, type RunningServer } from '../support/local-server';

let server: RunningServer;

beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('the API describes itself, without a key', () => {
  it('serves the OpenAPI document at /openapi.json', async () => {
    const response = await call(server, 'GET', '/openapi.json');

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('serves the reference page at /docs, and its script from this server (no CDN)', async () => {
    const page = await fetch(`${server.url}/docs`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toContain('data-url="/openapi.json"');
    const scripts = [...html.matchAll(/src="([^"]+)"/g)].map((match) => match[1]);
    expect(scripts).toEqual(['/docs/api-reference.js']);
    expect(html).not.toMatch(/https?:\/\//);

    const script = await fetch(`${server.url}/docs/api-reference.js`, { headers: { 'accept-encoding': 'identity' } });
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(1_000_000);
  });

  it('sends the script gzipped to a client that accepts it', async () => {
    const { request } = await import('node:http');
    const raw = await new Promise<{ status: number; encoding?: string; body: Buffer }>((resolve, reject) => {
      request(`${server.url}/docs/api-reference.js`, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) }));
      })
        .on('error', reject)
        .end();
    });
    expect(raw).toMatchObject({ status: 200, encoding: 'gzip' });
    expect(gunzipSync(raw.body).toString('utf8')).toContain('api-reference');
  });
});

describe('GET /accounts/api/api-keys/me through the local server', () => {
  it('describes a key minted with the keys CLI; a key of another pixel is a 401', async () => {
    const key = await mintKey(server, 'px_me_e2e', 'db_query,account:write', '--name', 'reporting', '--events-rate-limit', '50/1s', '--cost-limit', '500/1m');
    const headers = { 'x-api-key': key.apiKey, 'x-pixel-id': 'px_me_e2e' };

    const response = await call(server, 'GET', '/accounts/api/api-keys/me', { headers });

    expect(response.status).toBe(200);
    expect(response.body.apiKey).toEqual({
      apiKeyPk: key.apiKeyPk,
      pixelId: 'px_me_e2e',
      name: 'reporting',
      scopes: { stored: ['db_query', 'account:write'], granted: ['analytics:read', 'account:read', 'account:write'] },
      createdAt: expect.any(String),
      expiresAt: null,
      rateLimits: {
        api: { quota: 1200, windowSeconds: 60, policy: '"api";q=1200;w=60' },
        events: { quota: 50, windowSeconds: 1, policy: '"events";q=50;w=1' },
        cost: { quota: 500, windowSeconds: 60, policy: '"cost";q=500;w=60' },
      },
    });
    expect((await call(server, 'GET', '/accounts/api/api-keys/me', { headers: { ...headers, 'x-pixel-id': 'px_demo' } })).status).toBe(401);
  });
});
