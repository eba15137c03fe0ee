import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handler as putOrderSettings } from '../../functions/accounts/put-order-settings';
import { handler as getOrderSettings } from '../../functions/accounts/get-order-settings';
import { hashApiKey } from '../../shared/auth/api-key-secret';
import { apiEvent, invoke } from '../support/api-event';
import { validSettings } from '../support/order-settings-fixtures';

const RAW_KEY = `upstack_${'k'.repeat(43)}`;
const PATH = '/accounts/api/account/settings/order';
const headers = { 'x-api-key': RAW_KEY, 'x-pixel-id': 'px_1' };
const dynamo = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  // The key lookup is the only call before the handler runs: an UpdateItem on the key's own item
  // that counts the request against its quota and returns the key.
  dynamo.on(UpdateCommand, { Key: { PK: `APIKEY#${hashApiKey(RAW_KEY)}`, SK: 'APIKEY' } }).resolves({
    Attributes: {
      apiKeyPk: 'ak_1',
      keyHash: hashApiKey(RAW_KEY),
      pixelId: 'px_1',
      name: '',
      scopes: ['account:write'],
      hint: 'kkkk',
      createdAt: '2026-01-01T00:00:00Z',
      rl_api_count: 1,
      rl_api_resetAt: Date.now() + 60_000,
    },
  });
});
afterEach(() => dynamo.reset());

describe('the request pipeline', () => {
  it('answers an unexpected failure with 500, the request id and no internals', async () => {
    dynamo.on(GetCommand, { Key: { PK: 'PIXEL#px_1', SK: 'ORDER_SETTINGS' } }).rejects(new Error('table arn:aws:dynamodb:secret exploded'));
    const event = apiEvent({ method: 'GET', path: PATH, headers });

    const response = await invoke(getOrderSettings, event);

    expect(response.status).toBe(500);
    expect(response.body).toEqual({ message: 'Internal server error', requestId: event.requestContext.requestId });
    expect(response.headers['x-request-id']).toBe(event.requestContext.requestId);
  });

  it('answers a throttled table with a retryable 503', async () => {
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ProvisionedThroughputExceededException' });
    dynamo.on(GetCommand, { Key: { PK: 'PIXEL#px_1', SK: 'ORDER_SETTINGS' } }).rejects(throttled);

    const response = await invoke(getOrderSettings, apiEvent({ method: 'GET', path: PATH, headers }));

    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
  });

  it.each([
    ['malformed JSON', '{"countPendingOrders": tru', 'Request body is not valid JSON'],
    ['a JSON array', '[]', 'Request body must be a JSON object'],
    ['a JSON string', '"settings"', 'Request body must be a JSON object'],
    ['JSON null', 'null', 'Request body must be a JSON object'],
    ['an empty body', '', 'Request body is required'],
  ])('rejects %s with 400 and an error located at the body itself', async (_, body, message) => {
    const response = await invoke(putOrderSettings, apiEvent({ method: 'PUT', path: PATH, headers, body }));
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message, errors: [{ message, key: '', path: [] }] });
  });

  it('refuses a body pixelId that differs from the header with 403, before validating the rest', async () => {
    const response = await invoke(
      putOrderSettings,
      apiEvent({ method: 'PUT', path: PATH, headers, body: { pixelId: 'px_other', countPendingOrders: 'yes' } }),
    );
    expect(response.status).toBe(403);
    expect(response.body).toEqual({ message: 'Body pixelId does not match the x-pixel-id header' });
  });

  it('never stores or publishes anything for a request it rejects', async () => {
    await invoke(putOrderSettings, apiEvent({ method: 'PUT', path: PATH, headers, body: validSettings({ extra: 1 }) }));
    expect(dynamo.calls().map((call) => call.args[0].constructor.name)).toEqual(['UpdateCommand']);
  });

  it('reads header names case-insensitively even when an event arrives un-normalised', async () => {
    dynamo.on(GetCommand, { Key: { PK: 'PIXEL#px_1', SK: 'ORDER_SETTINGS' } }).resolves({});
    const event = apiEvent({ method: 'GET', path: PATH });
    event.headers = { 'X-Api-Key': RAW_KEY, 'X-Pixel-Id': 'px_1' };
    expect((await invoke(getOrderSettings, event)).status).toBe(200);
  });
});

describe('strict input (issue P5)', () => {
  const put = (body: string, path = PATH) => invoke(putOrderSettings, apiEvent({ method: 'PUT', path, headers, body }));

  it.each(['__proto__', 'constructor', 'prototype'])('refuses the key %s at every level, naming where, and stores nothing', async (key) => {
    const settings = validSettings();
    const text = JSON.stringify(settings)
      .replace('{"countPendingOrders"', `{"${key}":{},"countPendingOrders"`)
      .replace('"enabled":true', `"enabled":true,"${key}":1`)
      .replace('"logic":"and"', `"logic":"and","${key}":null`)
      .replace('"value":"pos"', `"value":"pos","${key}":"x"`);
    const response = await put(text);
    expect(response.status).toBe(400);
    expect(response.body!.errors.map((issue: { path: string[] }) => issue.path)).toEqual([
      [key],
      ['exclusionFilters', '0', key],
      ['exclusionFilters', '0', 'conditionGroups', '0', key],
      ['exclusionFilters', '0', 'conditionGroups', '0', 'conditions', '0', key],
    ]);
    expect(dynamo.calls().map((call) => call.args[0].constructor.name)).toEqual(['UpdateCommand']);
  });

  it.each([
    ['a lone surrogate', '{"countPendingOrders":"\\ud800"}', ['countPendingOrders'], /lone surrogate/],
    ['a number beyond float64', '{"countPendingOrders":1e400}', ['countPendingOrders'], /out of range/],
    ['a number too small for the store', '{"countPendingOrders":[1, -1e-131]}', ['countPendingOrders', '1'], /out of range/],
    ['a number too large for the store', '{"countPendingOrders":{"a":1e126}}', ['countPendingOrders', 'a'], /out of range/],
    ['nesting 10,000 deep', `{"countPendingOrders":${'['.repeat(10_000)}${']'.repeat(10_000)}}`, ['countPendingOrders', ...Array.from({ length: 63 }, () => '0')], /64 levels/],
  ])('refuses %s with a 400 at its path', async (_, body, path, message) => {
    const response = await put(body);
    expect(response.status).toBe(400);
    expect(response.body!.errors).toEqual([expect.objectContaining({ path, message: expect.stringMatching(message) })]);
  });

  it('refuses a body marked base64 that is not base64, or not UTF-8 once decoded', async () => {
    for (const body of ['!!!!', Buffer.from([0x7b, 0xff, 0x7d]).toString('base64')]) {
      const event = apiEvent({ method: 'PUT', path: PATH, headers, body: '{}' });
      Object.assign(event, { body, isBase64Encoded: true });
      const response = await invoke(putOrderSettings, event);
      expect(response.status).toBe(400);
      expect(response.body!.errors).toEqual([expect.objectContaining({ path: [] })]);
    }
  });

  it('refuses a query parameter on a route that declares none, and a repeated one', async () => {
    dynamo.on(GetCommand, { Key: { PK: 'PIXEL#px_1', SK: 'ORDER_SETTINGS' } }).resolves({});
    const get = (query: string) => invoke(getOrderSettings, apiEvent({ method: 'GET', path: `${PATH}?${query}`, headers }));
    for (const query of ['__proto__=1', 'constructor=1', 'x=1', '=1', 'a[]=1']) {
      const response = await get(query);
      expect(response.status, query).toBe(400);
      expect(response.body!.errors[0].path[0]).toBe('query');
    }
    const repeated = await put(JSON.stringify(validSettings()), `${PATH}?x=1&x=2`);
    expect(repeated.body!.errors).toEqual([{ message: "Query parameter 'x' may appear only once", key: 'x', path: ['query', 'x'] }]);
  });
});
