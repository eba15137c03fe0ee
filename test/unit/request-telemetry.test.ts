import { DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as getOrderSettings } from '../../functions/accounts/get-order-settings';
import { handler as ingestEvents } from '../../functions/tr/ingest-events';
import { hashApiKey } from '../../shared/auth/api-key-secret';
import { logger } from '../../shared/config/logger';
import { metrics } from '../../shared/config/metrics';
import { apiEvent, invoke } from '../support/api-event';

const RAW_KEY = `upstack_${'t'.repeat(43)}`;
const PATH = '/accounts/api/account/settings/order';
const dynamo = mockClient(DynamoDBDocumentClient);

beforeEach(() => {
  dynamo.on(UpdateCommand, { Key: { PK: `APIKEY#${hashApiKey(RAW_KEY)}`, SK: 'APIKEY' } }).resolves({
    Attributes: { apiKeyPk: 'ak_1', keyHash: hashApiKey(RAW_KEY), pixelId: 'px_1', name: '', scopes: ['account:read'], hint: 'tttt', createdAt: '2026-01-01T00:00:00Z', rl_api_count: 1, rl_api_resetAt: Date.now() + 60_000 },
  });
  dynamo.on(GetCommand).resolves({});
});
afterEach(() => {
  dynamo.reset();
  vi.restoreAllMocks();
});

function recorded() {
  const added = vi.spyOn(metrics, 'addMetric');
  const dimensions = vi.spyOn(metrics, 'addDimension');
  const published = vi.spyOn(metrics, 'publishStoredMetrics');
  const info = vi.spyOn(logger, 'info');
  const error = vi.spyOn(logger, 'error');
  return {
    metrics: () => Object.fromEntries(added.mock.calls.map(([name, , value]) => [name, value])),
    dimensions: () => dimensions.mock.calls,
    published: () => published.mock.calls.length,
    lines: () => [...info.mock.calls, ...error.mock.calls].map(([message, ...rest]) => JSON.stringify([message, ...rest])),
  };
}

describe('request telemetry', () => {
  it('records latency and a request per route, flushes once, and logs one line with no key or body', async () => {
    const seen = recorded();
    const response = await invoke(getOrderSettings, apiEvent({ method: 'GET', path: PATH, headers: { 'x-api-key': RAW_KEY, 'x-pixel-id': 'px_1' } }));
    expect(response.status).toBe(200);
    expect(seen.dimensions()).toEqual([['route', `GET ${PATH}`]]);
    expect(seen.metrics()).toEqual({ Latency: expect.any(Number), Requests: 1, ClientErrors: 0, ServerErrors: 0 });
    expect(seen.published()).toBe(1);
    expect(seen.lines()).toHaveLength(1);
    expect(seen.lines()[0]).toContain('"status":200');
    expect(seen.lines()[0]).not.toContain(RAW_KEY);
  });

  it('logs no query string, header or body, even with the invocation event logging switched on', async () => {
    const seen = recorded();
    // What POWERTOOLS_LOGGER_LOG_EVENT=true sets.
    vi.spyOn(logger, 'getLogEvent').mockReturnValue(true);
    const email = 'jane.doe@example.com';
    const phone = '+14155550100';
    const response = await invoke(
      ingestEvents,
      apiEvent({ method: 'POST', path: `/tr/api/events?email=${email}`, headers: { 'x-api-key': RAW_KEY, 'x-pixel-id': 'px_1', 'x-phone': phone }, body: { name: 'lead', user: { emails: [email], phones: [phone] } } }),
    );
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(seen.lines().length).toBeGreaterThan(0);
    for (const line of seen.lines()) {
      for (const secret of [email, phone, RAW_KEY]) expect(line).not.toContain(secret);
    }
  });

  it('counts a client error and a rate-limited request as such, whatever answered them', async () => {
    const seen = recorded();
    dynamo.on(UpdateCommand).resolves({
      Attributes: { apiKeyPk: 'ak_1', keyHash: hashApiKey(RAW_KEY), pixelId: 'px_1', name: '', scopes: ['account:read'], hint: 'tttt', createdAt: '2026-01-01T00:00:00Z', rl_api_count: 1201, rl_api_resetAt: Date.now() + 60_000 },
    });
    const response = await invoke(getOrderSettings, apiEvent({ method: 'GET', path: PATH, headers: { 'x-api-key': RAW_KEY, 'x-pixel-id': 'px_1' } }));
    expect(response.status).toBe(429);
    expect(seen.metrics()).toEqual({ Latency: expect.any(Number), Requests: 1, ClientErrors: 1, ServerErrors: 0, RateLimited: 1 });
  });

  it('counts a fault as a server error and logs it at error level with the correlation id', async () => {
    const seen = recorded();
    const correlationIds: unknown[] = [];
    vi.mocked(logger.error).mockImplementation(() => correlationIds.push(logger.getCorrelationId()));
    dynamo.on(GetCommand).rejects(new Error('exploded'));
    const event = apiEvent({ method: 'GET', path: PATH, headers: { 'x-api-key': RAW_KEY, 'x-pixel-id': 'px_1' } });
    const response = await invoke(getOrderSettings, event);
    expect(response.status).toBe(500);
    expect(seen.metrics()).toMatchObject({ ClientErrors: 0, ServerErrors: 1 });
    expect(correlationIds.at(-1)).toBe(event.requestContext.requestId);
  });

  it('counts the events an accepted request carried', async () => {
    const seen = recorded();
    dynamo.on(UpdateCommand).resolves({
      Attributes: { apiKeyPk: 'ak_1', keyHash: hashApiKey(RAW_KEY), pixelId: 'px_1', name: '', scopes: ['events:write'], hint: 'tttt', createdAt: '2026-01-01T00:00:00Z', rl_events_count: 1, rl_events_resetAt: Date.now() + 60_000 },
    });
    dynamo.on(PutCommand).resolves({});
    const body = { events: [{ name: 'page_view' }, { name: 'add_to_cart' }, { name: 'page_view' }] };
    const response = await invoke(ingestEvents, apiEvent({ method: 'POST', path: '/tr/api/events', headers: { 'x-api-key': RAW_KEY, 'x-pixel-id': 'px_1' }, body }));
    expect(response.status).toBe(200);
    expect(seen.metrics()).toMatchObject({ EventsAccepted: 3, Requests: 1, ClientErrors: 0 });
  });
});
