import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as getOrderSettings } from '../../functions/accounts/get-order-settings';
import { handler as ingestEvents } from '../../functions/tr/ingest-events';
import { hashApiKey } from '../../shared/auth/api-key-secret';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { parseRateLimit } from '../../shared/auth/rate-limit';
import { routes } from '../../lib/routes';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { apiEvent, invoke } from '../support/api-event';
import { useFreshTable } from '../support/fresh-table';

beforeAll(async () => {
  await useFreshTable();
});

const PIXEL = 'px_quota';
const settingsRequest = (apiKey: string, now = new Date()) =>
  invoke(getOrderSettings, apiEvent({ method: 'GET', path: routes.getOrderSettings.path, headers: { 'x-api-key': apiKey, 'x-pixel-id': PIXEL }, now }));
const eventsRequest = (apiKey: string, now = new Date()) =>
  invoke(
    ingestEvents,
    apiEvent({ method: 'POST', path: routes.ingestEvents.path, headers: { 'x-api-key': apiKey, 'x-pixel-id': PIXEL }, body: { name: 'page_view' }, now }),
  );

describe('per-key rate limits', () => {
  it('of N + k concurrent requests on a quota of N, exactly k are refused with 429 and Retry-After', async () => {
    const { apiKey } = await mintApiKey({ pixelId: PIXEL, scopes: ['account:read'], rateLimit: '12/1m' });
    const now = new Date();
    const answers = await Promise.all(Array.from({ length: 17 }, () => settingsRequest(apiKey, now)));

    const refused = answers.filter((answer) => answer.status === 429);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(12);
    expect(refused).toHaveLength(5);
    for (const answer of refused) {
      expect(answer.body).toEqual({ message: expect.stringMatching(/^This API key has used its quota of 12 requests per 60 s; retry after \d+ s$/) });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(answer.headers.ratelimit).toMatch(/^"api";r=0;t=\d+$/);
    }
    // Every answer says where the key stands; the remaining counts are the 12 distinct values 11..0.
    for (const answer of answers) expect(answer.headers['ratelimit-policy']).toBe('"api";q=12;w=60');
    const remaining = answers.filter((answer) => answer.status === 200).map((answer) => Number(/r=(\d+)/.exec(answer.headers.ratelimit!)![1]));
    expect(remaining.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });

  it('opens a new window once the old one has closed', async () => {
    const { apiKey } = await mintApiKey({ pixelId: PIXEL, scopes: ['account:read'], rateLimit: '2/10s' });
    const start = new Date('2026-11-24T10:00:00.000Z');
    const first = await settingsRequest(apiKey, start);
    expect(first.headers.ratelimit).toBe('"api";r=1;t=10');
    await settingsRequest(apiKey, new Date(start.getTime() + 1_000));
    const over = await settingsRequest(apiKey, new Date(start.getTime() + 9_000));
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toBe('1');
    const reopened = await settingsRequest(apiKey, new Date(start.getTime() + 10_000));
    expect(reopened.status).toBe(200);
    expect(reopened.headers.ratelimit).toBe('"api";r=1;t=10');
  });

  it('counts the events API on its own quota, in the events error envelope', async () => {
    const { apiKey } = await mintApiKey({ pixelId: PIXEL, scopes: ['account:read', 'events:write'], rateLimit: '1/1m', eventsRateLimit: '2/1m' });
    const now = new Date();
    expect((await settingsRequest(apiKey, now)).status).toBe(200);
    expect((await settingsRequest(apiKey, now)).status).toBe(429);
    const events = [await eventsRequest(apiKey, now), await eventsRequest(apiKey, now), await eventsRequest(apiKey, now)];
    expect(events.map((answer) => answer.status)).toEqual([200, 200, 429]);
    expect(events[0]!.headers['ratelimit-policy']).toBe('"events";q=2;w=60');
    expect(events[2]!.body).toMatchObject({ error: { code: 'rate_limited', details: [] }, message: expect.stringContaining('events quota of 2 requests per 60 s') });
  });

  it('uses the documented defaults for a key minted without a quota, and answers 401 before 429 for a bad key', async () => {
    const { apiKey } = await mintApiKey({ pixelId: PIXEL, scopes: ['account:read'] });
    const answer = await settingsRequest(apiKey);
    expect(answer.headers['ratelimit-policy']).toBe('"api";q=1200;w=60');
    expect(answer.headers.ratelimit).toBe('"api";r=1199;t=60');

    const unknown = `${apiKey.slice(0, -4)}AAAA`;
    const refused = await settingsRequest(unknown);
    expect(refused.status).toBe(401);
    expect(refused.headers['ratelimit-policy']).toBeUndefined();
    // Counting never creates an item for a key that does not exist.
    const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: `APIKEY#${hashApiKey(unknown)}`, SK: 'APIKEY' } }));
    expect(Item).toBeUndefined();
  });

  it('reads <requests>/<window> in the units the CLI documents, and nothing else', () => {
    expect(parseRateLimit('100/1m')).toEqual({ quota: 100, windowSeconds: 60 });
    expect(parseRateLimit('10/s')).toEqual({ quota: 10, windowSeconds: 1 });
    expect(parseRateLimit('5000/1h')).toEqual({ quota: 5000, windowSeconds: 3600 });
    expect(parseRateLimit('20/1d')).toEqual({ quota: 20, windowSeconds: 86_400 });
    fc.assert(
      fc.property(fc.string(), (text) => {
        const limit = parseRateLimit(text);
        if (limit) expect(limit.quota >= 1 && limit.windowSeconds >= 1 && limit.windowSeconds <= 86_400).toBe(true);
      }),
    );
  });
});
