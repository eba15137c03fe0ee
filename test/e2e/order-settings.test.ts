import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../shared/auth/api-key-secret';
import { call, eventLines, keysCli, mintKey, pipelineDrained, startLocalServer, type RunningServer } from '../support/local-server';
import { validSettings } from '../support/order-settings-fixtures';

const PATH = '/accounts/api/account/settings/order';
let server: RunningServer;
let writer: { apiKey: string; apiKeyPk: string };
const as = (apiKey: string, pixelId = 'px_e2e') => ({ 'x-api-key': apiKey, 'x-pixel-id': pixelId });

beforeAll(async () => {
  server = await startLocalServer();
  writer = await mintKey(server, 'px_e2e', 'account:write');
});
afterAll(async () => {
  await server?.stop();
});

describe('first start', () => {
  it('prints a demo key once, and that key works for the demo pixel', async () => {
    const demoKey = /x-api-key:\s+(upstack_\S+)/.exec(server.output())?.[1];
    expect(demoKey).toBeDefined();
    expect((await call(server, 'GET', PATH, { headers: as(demoKey!, 'px_demo') })).status).toBe(200);
  });
});

describe('authentication: 401 (spec section 5)', () => {
  it.each([
    ['no headers at all', {}],
    ['no x-api-key', { 'x-pixel-id': 'px_e2e' }],
    ['no x-pixel-id', { 'x-api-key': 'upstack_aaaaaaaaaaaaaaaaaaaaaaaa' }],
    ['a key without the service prefix', { 'x-api-key': 'sk_live_aaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'x-pixel-id': 'px_e2e' }],
    ['a well-formed key that was never minted', { 'x-api-key': `upstack_${'z'.repeat(43)}`, 'x-pixel-id': 'px_e2e' }],
  ])('answers 401 to %s', async (_, headers) => {
    const response = await call(server, 'GET', PATH, { headers });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: expect.any(String) });
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers 401 to a valid key presented for another pixel', async () => {
    const other = await mintKey(server, 'px_other', 'account:write');
    expect((await call(server, 'GET', PATH, { headers: as(other.apiKey, 'px_e2e') })).status).toBe(401);
    expect((await call(server, 'GET', PATH, { headers: as(other.apiKey, 'px_other') })).status).toBe(200);
  });

  it('answers 401 to a key whose expiry has passed', async () => {
    const key = await mintKey(server, 'px_e2e', 'account:write', '--expires-at', '2099-01-01T00:00:00Z');
    expect((await call(server, 'GET', PATH, { headers: as(key.apiKey) })).status).toBe(200);
    // A key cannot be minted already expired: its expiry is moved into the past in the store.
    const store = DynamoDBDocumentClient.from(
      new DynamoDBClient({ endpoint: `http://127.0.0.1:${server.env.DYNAMODB_PORT}`, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
    );
    try {
      await store.send(
        new UpdateCommand({
          TableName: 'merchant-analytics-local',
          Key: { PK: `APIKEY#${hashApiKey(key.apiKey)}`, SK: 'APIKEY' },
          UpdateExpression: 'SET expiresAt = :past',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':past': '2020-01-01T00:00:00.000Z' },
        }),
      );
    } finally {
      store.destroy();
    }
    const response = await call(server, 'GET', PATH, { headers: as(key.apiKey) });
    expect(response).toMatchObject({ status: 401, body: { message: 'API key has expired' } });
  });

  it('answers 401 on the very next request after a key is revoked with the CLI', async () => {
    const key = await mintKey(server, 'px_e2e', 'account:write');
    expect((await call(server, 'GET', PATH, { headers: as(key.apiKey) })).status).toBe(200);

    await keysCli(server, 'revoke', key.apiKeyPk);

    const response = await call(server, 'GET', PATH, { headers: as(key.apiKey) });
    expect(response).toMatchObject({ status: 401, body: { message: 'API key has been revoked' } });
    expect(JSON.parse(await keysCli(server, 'list', '--pixel', 'px_e2e', '--json'))).toContainEqual(
      expect.objectContaining({ apiKeyPk: key.apiKeyPk, revokedAt: expect.any(String) }),
    );
  });
});

describe('authorisation: 403 (spec section 5)', () => {
  it.each([
    ['analytics:read', 'PUT', 403],
    ['db_query', 'PUT', 403],
    ['attribution_query', 'GET', 403],
    ['dashboards:write', 'GET', 403],
    ['account:read', 'PUT', 403],
    ['account:read', 'GET', 200],
    ['account:write', 'GET', 200],
  ])('a key with %s gets %s %i', async (scopes, method, status) => {
    const key = await mintKey(server, 'px_scopes', scopes);
    const response = await call(server, method, PATH, { headers: as(key.apiKey, 'px_scopes'), body: method === 'PUT' ? validSettings() : undefined });
    expect(response.status).toBe(status);
    if (status === 403) expect(response.body.message).toMatch(/scope/);
  });
});

describe('replace then read order settings', () => {
  it('answers the defaults before anything is set', async () => {
    const key = await mintKey(server, 'px_fresh', 'account:read');
    expect((await call(server, 'GET', PATH, { headers: as(key.apiKey, 'px_fresh') })).body).toEqual({
      orderSettings: { countPendingOrders: false, countVoidedOrders: false, refundDateAttribution: 'refund_date', exclusionFilters: [] },
    });
  });

  it('round-trips, keeps createdAt across PUTs, deletes absent filters, and logs one event per change', async () => {
    await pipelineDrained(server);
    const eventsBefore = eventLines(server).length;

    // First PUT: two filters, ids assigned by the server.
    const body = validSettings({ exclusionFilters: [validSettings().exclusionFilters[0], { ...validSettings().exclusionFilters[0], name: 'Second' }] });
    const first = await call(server, 'PUT', PATH, { headers: as(writer.apiKey), body });
    expect(first.status).toBe(200);
    expect((await call(server, 'GET', PATH, { headers: as(writer.apiKey) })).body).toEqual(first.body);
    const [kept] = first.body.orderSettings.exclusionFilters;

    // Second PUT: only the first filter, sent back as read; the second is deleted.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await call(server, 'PUT', PATH, { headers: as(writer.apiKey), body: { ...first.body.orderSettings, exclusionFilters: [kept] } });
    expect(second.status).toBe(200);
    const [after] = second.body.orderSettings.exclusionFilters;
    expect(second.body.orderSettings.exclusionFilters).toHaveLength(1);
    expect(after).toMatchObject({ id: kept.id, createdAt: kept.createdAt, conditionGroups: kept.conditionGroups });
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(kept.updatedAt));

    // Third PUT: an empty list deletes every filter.
    const third = await call(server, 'PUT', PATH, { headers: as(writer.apiKey), body: validSettings({ exclusionFilters: [] }) });
    expect(third.body.orderSettings.exclusionFilters).toEqual([]);
    await pipelineDrained(server);

    // Delivery is at least once: what a subscriber sees, deduplicated on eventId, is one event per PUT.
    const events = [...new Map(eventLines(server).slice(eventsBefore).map((event) => [event.detail.eventId, event])).values()];
    expect(events).toHaveLength(3);
    for (const event of events) {
      expect(event).toMatchObject({
        'detail-type': 'accountUpdated',
        detail: { eventId: expect.stringMatching(/^px_e2e:orderSettings:\d+$/), pixelId: 'px_e2e', actor: `cli:${writer.apiKeyPk}`, change: { kind: 'orderSettings' } },
      });
    }
  });
});

describe('every rejected PUT leaves the stored settings and the event log as they were', () => {
  const filter = validSettings().exclusionFilters[0]!;
  const group = filter.conditionGroups[0]!;
  const withCondition = (condition: Record<string, unknown>) =>
    validSettings({ exclusionFilters: [{ ...filter, conditionGroups: [{ ...group, conditions: [condition] }] }] });

  it.each([
    ['a missing field', { countPendingOrders: true, countVoidedOrders: false, refundDateAttribution: 'refund_date' }],
    ['a string boolean', validSettings({ countVoidedOrders: 'true' })],
    ['an unknown refund attribution', validSettings({ refundDateAttribution: 'yesterday' })],
    ['an unknown top-level key', validSettings({ currency: 'USD' })],
    ['an unknown filter key', validSettings({ exclusionFilters: [{ ...filter, priority: 1 }] })],
    ['an unknown group key', validSettings({ exclusionFilters: [{ ...filter, conditionGroups: [{ ...group, negate: true }] }] })],
    ['an unknown condition key', withCondition({ field: 'sourceName', operator: 'equals', value: 'pos', caseSensitive: true })],
    ['greater_than on sourceName', withCondition({ field: 'sourceName', operator: 'greater_than', value: 'a' })],
    ['exists on tags', withCondition({ field: 'tags', operator: 'exists' })],
    ['a string for in', withCondition({ field: 'paymentGateway', operator: 'in', value: 'stripe' })],
    ['a string for a number', withCondition({ field: 'value', operator: 'less_than', value: '10' })],
    ['51 filters', validSettings({ exclusionFilters: Array.from({ length: 51 }, () => filter) })],
    ['21 groups', validSettings({ exclusionFilters: [{ ...filter, conditionGroups: Array.from({ length: 21 }, () => group) }] })],
    ['no groups', validSettings({ exclusionFilters: [{ ...filter, conditionGroups: [] }] })],
    ['21 conditions', validSettings({ exclusionFilters: [{ ...filter, conditionGroups: [{ ...group, conditions: Array.from({ length: 21 }, () => group.conditions[0]) }] }] })],
    ['an empty name', validSettings({ exclusionFilters: [{ ...filter, name: '' }] })],
    ['a 101-character name', validSettings({ exclusionFilters: [{ ...filter, name: 'n'.repeat(101) }] })],
    ['a name with a bidi override', validSettings({ exclusionFilters: [{ ...filter, name: 'evil\u202Etxt' }] })],
    ['a name with a zero-width space', validSettings({ exclusionFilters: [{ ...filter, name: 'a\u200Bb' }] })],
    ['a name with a control character', validSettings({ exclusionFilters: [{ ...filter, name: 'a\u0007b' }] })],
    ['a filter id that is not a UUID', validSettings({ exclusionFilters: [{ ...filter, id: '42' }] })],
    ['malformed JSON', '{"countPendingOrders":'],
  ])('400 for %s', async (_, body) => {
    // Prepare: a known stored state.
    await call(server, 'PUT', PATH, { headers: as(writer.apiKey), body: validSettings() });
    const before = (await call(server, 'GET', PATH, { headers: as(writer.apiKey) })).body;
    await pipelineDrained(server);
    const eventsBefore = eventLines(server).length;

    // Act
    const response = await call(server, 'PUT', PATH, { headers: as(writer.apiKey), body });

    // Assess
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      message: expect.any(String),
      errors: expect.arrayContaining([{ message: expect.any(String), key: expect.any(String), path: expect.any(Array) }]),
    });
    expect((await call(server, 'GET', PATH, { headers: as(writer.apiKey) })).body).toEqual(before);
    await pipelineDrained(server);
    expect(eventLines(server)).toHaveLength(eventsBefore);
  });
});

describe('a body that is not valid UTF-8', () => {
  it('is a 400 at the body itself on a JSON route too, and changes nothing', async () => {
    await call(server, 'PUT', PATH, { headers: as(writer.apiKey), body: validSettings() });
    const before = (await call(server, 'GET', PATH, { headers: as(writer.apiKey) })).body;
    // A valid, different body, but for invalid bytes in a filter's name.
    const [head, tail] = JSON.stringify(validSettings({ countPendingOrders: true, exclusionFilters: [{ ...validSettings().exclusionFilters[0], name: 'Exclude @' }] })).split('@') as [string, string];
    const response = await fetch(server.url + PATH, {
      method: 'PUT',
      headers: { ...as(writer.apiKey), 'content-type': 'application/json' },
      body: Buffer.concat([Buffer.from(head), Buffer.from([0xff, 0xfe]), Buffer.from(tail)]),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ message: 'Request body is not valid UTF-8', errors: [{ message: 'Request body is not valid UTF-8', key: '', path: [] }] });
    expect((await call(server, 'GET', PATH, { headers: as(writer.apiKey) })).body).toEqual(before);
  });
});

describe('the front door', () => {
  it('answers unknown routes with 404 and a wrong method with 405', async () => {
    expect(await call(server, 'GET', '/nope')).toMatchObject({ status: 404, body: { message: 'Not Found' } });
    const wrongMethod = await call(server, 'POST', PATH, { headers: as(writer.apiKey), body: {} });
    expect(wrongMethod).toMatchObject({ status: 405, body: { message: 'Method Not Allowed' } });
    expect(wrongMethod.headers.get('allow')).toBe('GET, PUT');
  });
});

describe('restart', () => {
  it('shuts down cleanly on SIGTERM, keeps the data, and does not mint a second demo key', async () => {
    await call(server, 'PUT', PATH, { headers: as(writer.apiKey), body: validSettings({ countPendingOrders: true }) });
    expect(await server.stop()).toBe(0);

    server = await startLocalServer({ dataDir: server.dataDir });

    expect(server.output()).not.toMatch(/x-api-key:/);
    const response = await call(server, 'GET', PATH, { headers: as(writer.apiKey) });
    expect(response.body.orderSettings.countPendingOrders).toBe(true);
  });
});
