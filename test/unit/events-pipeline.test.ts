import { gunzipSync } from 'node:zlib';
import { BatchWriteCommand, DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handler } from '../../functions/tr/ingest-events';
import { hashApiKey } from '../../shared/auth/api-key-secret';
import { apiEvent, invoke } from '../support/api-event';
import { pageView } from '../support/event-fixtures';

const RAW_KEY = `upstack_${'e'.repeat(43)}`;
const PATH = '/tr/api/events';
const headers = { 'x-api-key': RAW_KEY, 'x-pixel-id': 'px_1' };
const LIMIT = 128 * 1024;
const dynamo = mockClient(DynamoDBDocumentClient);

function keyWithScopes(scopes: string[]) {
  // The key is read by the UpdateItem that counts the request against its quota.
  dynamo.on(UpdateCommand, { Key: { PK: `APIKEY#${hashApiKey(RAW_KEY)}`, SK: 'APIKEY' } }).resolves({
    Attributes: {
      apiKeyPk: 'ak_1',
      keyHash: hashApiKey(RAW_KEY),
      pixelId: 'px_1',
      name: '',
      scopes,
      hint: 'eeee',
      createdAt: '2026-01-01T00:00:00Z',
      rl_events_count: 1,
      rl_events_resetAt: Date.now() + 60_000,
    },
  });
}

beforeEach(() => {
  keyWithScopes(['events:write']);
  dynamo.on(PutCommand).resolves({});
  dynamo.on(BatchWriteCommand).resolves({});
});
afterEach(() => dynamo.reset());

const post = (body: unknown, extraHeaders: Record<string, string> = headers) => {
  const event = apiEvent({ method: 'POST', path: PATH, headers: extraHeaders, body });
  return invoke(handler, event).then((response) => ({ ...response, requestId: event.requestContext.requestId }));
};

/** A JSON body of exactly `bytes` bytes: one page_view whose custom `note` pads it out with `pad`. */
function bodyOfBytes(bytes: number, pad = 'a'): string {
  const shell = JSON.stringify({ events: [{ name: 'page_view', data: { note: '' } }] });
  const padBytes = bytes - Buffer.byteLength(shell);
  const unit = Buffer.byteLength(pad);
  return shell.replace('"note":""', `"note":"${pad.repeat(Math.floor(padBytes / unit))}${'a'.repeat(padBytes % unit)}"`);
}

const isKeyRead = (command: unknown) => command instanceof UpdateCommand && String(command.input.Key?.PK).startsWith('APIKEY#');
const storageCalls = () => dynamo.calls().filter((call) => !isKeyRead(call.args[0]));

describe('the 128 KB limit', () => {
  it('answers 413 in the events envelope for one byte over, before parsing and storing anything', async () => {
    const body = bodyOfBytes(LIMIT + 1);
    const response = await post(body);
    expect(response.status).toBe(413);
    expect(response.body).toEqual({
      message: `Request body is ${LIMIT + 1} bytes; the limit is ${LIMIT} bytes (128 KB)`,
      requestId: response.requestId,
      error: { code: 'payload_too_large', details: [] },
    });
    expect(storageCalls()).toEqual([]);
  });

  it('accepts a body of exactly 128 KB', async () => {
    const body = bodyOfBytes(LIMIT);
    expect(Buffer.byteLength(body)).toBe(LIMIT);
    expect((await post(body)).status).toBe(200);
  });

  it('counts bytes, not characters: 70,000 two-byte characters are over the limit', async () => {
    const body = bodyOfBytes(LIMIT + 2, 'é');
    expect(body.length).toBeLessThan(LIMIT);
    expect((await post(body)).status).toBe(413);
  });

  it('does not parse an oversized body: invalid JSON over the limit is 413, not 400', async () => {
    expect((await post(`{${'x'.repeat(LIMIT)}`)).status).toBe(413);
  });

  it('measures a base64-encoded body decoded', async () => {
    const event = apiEvent({ method: 'POST', path: PATH, headers });
    event.isBase64Encoded = true;
    event.body = Buffer.from(bodyOfBytes(LIMIT + 1)).toString('base64');
    expect((await invoke(handler, event)).status).toBe(413);
    event.body = Buffer.from(bodyOfBytes(LIMIT)).toString('base64');
    expect((await invoke(handler, event)).status).toBe(200);
  });

  it('checks the key first: an unauthenticated oversized body is 401', async () => {
    expect((await post(bodyOfBytes(LIMIT + 1), {})).status).toBe(401);
  });
});

describe('the events error envelope', () => {
  it('answers 401 with code unauthorized', async () => {
    const response = await post({ events: [pageView()] }, { 'x-pixel-id': 'px_1' });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: 'Missing x-api-key header', requestId: response.requestId, error: { code: 'unauthorized', details: [] } });
    expect(response.headers['x-request-id']).toBe(response.requestId);
  });

  it('answers 403 with code forbidden for a key without events:write', async () => {
    keyWithScopes(['analytics:read', 'account:write']);
    const response = await post({ events: [pageView()] });
    expect(response).toMatchObject({ status: 403, body: { error: { code: 'forbidden', details: [] } } });
    expect(storageCalls()).toEqual([]);
  });

  it('answers 403 for a body pixelId that differs from the header, before validating', async () => {
    const response = await post({ pixelId: 'px_other', events: [] });
    expect(response).toMatchObject({ status: 403, body: { message: 'Body pixelId does not match the x-pixel-id header', error: { code: 'forbidden' } } });
  });

  it.each([
    ['malformed JSON', '{"events": ['],
    ['a JSON array', '[]'],
    ['an empty body', ''],
  ])('answers %s with 400 malformed_body', async (_, body) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: expect.any(String), requestId: response.requestId, error: { code: 'malformed_body', details: [] } });
  });

  it('answers an invalid event with 400 validation_failed, naming index and path, and stores nothing of the batch', async () => {
    const response = await post({ events: [pageView(), pageView({ name: 'bad name' })] });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      message: '1 problem in the request. Nothing was stored',
      requestId: response.requestId,
      error: {
        code: 'validation_failed',
        details: [{ index: 1, path: ['events', '1', 'name'], code: 'invalid_format', message: expect.any(String) }],
      },
    });
    expect(storageCalls()).toEqual([]);
  });

  it('lists at most 100 details and says how many problems there were', async () => {
    const events = Array.from({ length: 60 }, () => pageView({ name: '', extra: true }));
    const response = await post({ events });
    expect(response.body!.message).toBe('120 problems in the request; the first 100 are listed. Nothing was stored');
    expect(response.body!.error.details).toHaveLength(100);
  });

  it('answers a storage fault with a retryable 503 carrying the request id and no internals', async () => {
    dynamo.on(PutCommand).rejects(Object.assign(new Error('arn:aws:dynamodb:secret throttled'), { name: 'ProvisionedThroughputExceededException' }));
    const response = await post({ events: [pageView()] });
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.body).toEqual({ message: expect.stringContaining('retry'), requestId: response.requestId, error: { code: 'service_unavailable', details: [] } });
    expect(JSON.stringify(response.body)).not.toContain('arn:aws');
  });

  it('answers an unexpected failure with 500 internal_error and the request id only', async () => {
    dynamo.on(UpdateCommand).rejects(new Error('table arn:aws:dynamodb:secret exploded'));
    const response = await post({ events: [pageView()] });
    expect(response.status).toBe(500);
    expect(response.body).toEqual({ message: 'Internal server error', requestId: response.requestId, error: { code: 'internal_error', details: [] } });
  });

  it('answers any other storage failure as retryable too: the request was valid and a retry is safe', async () => {
    dynamo.on(PutCommand).rejects(new Error('socket hang up'));
    const response = await post({ events: [pageView({ eventId: 'e1' })] });
    expect(response).toMatchObject({ status: 503, body: { error: { code: 'service_unavailable' } } });
  });
});

describe('success', () => {
  it('answers a batch with {success, eventsIngested} and one event with {success, eventId}', async () => {
    expect((await post({ events: [pageView(), pageView(), pageView({ eventId: 'client-1' })] })).body).toEqual({ success: true, eventsIngested: 3 });
    expect((await post(pageView({ eventId: 'client-2' }))).body).toEqual({ success: true, eventId: 'client-2' });
    expect((await post(pageView())).body).toEqual({ success: true, eventId: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/) });
  });

  it('accepts with one write, the log entry, holding the hashed events and nothing raw', async () => {
    await post({ events: [pageView({ eventId: 'one', user: { emails: ['Raw.Person@example.com'] } }), pageView()] });
    const writes = storageCalls();
    expect(writes).toHaveLength(1);
    const item = (writes[0]!.args[0] as PutCommand).input.Item!;
    expect(item).toMatchObject({ PK: 'PIXEL#px_1#LOG', kind: 'events', count: 2, GSI2PK: expect.stringMatching(/^PENDING#[0-7]$/) });
    const events = JSON.parse(gunzipSync(item.data as Uint8Array).toString('utf8'));
    expect(events.map((event: { eventId: string }) => event.eventId)).toEqual(['one', expect.stringMatching(/^[0-9A-Z]{26}$/)]);
    expect(JSON.stringify(events)).not.toMatch(/raw\.person/i);
  });
});

describe('strict input (issue P5)', () => {
  it('refuses __proto__, constructor and prototype in custom data, naming each, in the events envelope', async () => {
    const body = '{"events":[{"name":"page_view","data":{"__proto__":{"admin":true},"items":[{"id":"a","constructor":"x"}]}}],"prototype":1}';
    const response = await post(body);
    expect(response.status).toBe(400);
    expect(response.body!.error.code).toBe('validation_failed');
    expect(response.body!.error.details).toEqual([
      { index: 0, path: ['events', '0', 'data', '__proto__'], code: 'forbidden_key', message: "Key '__proto__' is not allowed" },
      { index: 0, path: ['events', '0', 'data', 'items', '0', 'constructor'], code: 'forbidden_key', message: "Key 'constructor' is not allowed" },
      { index: null, path: ['prototype'], code: 'forbidden_key', message: "Key 'prototype' is not allowed" },
    ]);
    expect(storageCalls()).toEqual([]);
  });

  it('locates a forbidden key of the single form in event 0', async () => {
    const response = await post('{"name":"page_view","data":{"constructor":1}}');
    expect(response.body!.error.details).toEqual([expect.objectContaining({ index: 0, path: ['data', 'constructor'], code: 'forbidden_key' })]);
  });

  it('refuses any query parameter, since the route declares none', async () => {
    const event = apiEvent({ method: 'POST', path: `${PATH}?__proto__=1&debug=true`, headers, body: pageView() });
    const response = await invoke(handler, event);
    expect(response.status).toBe(400);
    expect(response.body!.error).toEqual({
      code: 'validation_failed',
      details: [
        { index: null, path: ['query', '__proto__'], code: 'unknown_key', message: "Unknown key '__proto__' is not allowed" },
        { index: null, path: ['query', 'debug'], code: 'unknown_key', message: "Unknown key 'debug' is not allowed" },
      ],
    });
    expect(storageCalls()).toEqual([]);
  });
});
