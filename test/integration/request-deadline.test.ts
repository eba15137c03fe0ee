import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../lib/local/local-api';
import { apiEvent } from '../support/api-event';
import { startFaultInjectingStore, type Fault } from '../support/fault-injecting-store';
import { useFreshTable } from '../support/fresh-table';
import { validSettings } from '../support/order-settings-fixtures';

/*
 * A slow store near the request's deadline: whatever the timing, a response says what happened.
 * 200 means the settings answered are the ones stored; 503 means nothing was stored; an outcome
 * the service could not establish in time is a 500, never a 503. The store is real (dynalite),
 * behind a proxy that delays chosen calls before they reach it or after it has answered.
 */
const PATH = '/accounts/api/account/settings/order';
const DEFAULTS = { countPendingOrders: false, countVoidedOrders: false, refundDateAttribution: 'refund_date', exclusionFilters: [] };

let store: Awaited<ReturnType<typeof startFaultInjectingStore>>;
let handlers: {
  ingest: typeof import('../../functions/tr/ingest-events').handler;
  put: typeof import('../../functions/accounts/put-order-settings').handler;
  get: typeof import('../../functions/accounts/get-order-settings').handler;
  mintApiKey: typeof import('../../shared/auth/api-key-service').mintApiKey;
};

beforeAll(async () => {
  await useFreshTable();
  store = await startFaultInjectingStore(process.env.AWS_ENDPOINT_URL_DYNAMODB!);
  // The store client is built when its module loads, from this variable: load the handlers after.
  process.env.AWS_ENDPOINT_URL_DYNAMODB = store.endpoint;
  handlers = {
    ingest: (await import('../../functions/tr/ingest-events')).handler,
    put: (await import('../../functions/accounts/put-order-settings')).handler,
    get: (await import('../../functions/accounts/get-order-settings')).handler,
    mintApiKey: (await import('../../shared/auth/api-key-service')).mintApiKey,
  };
});
afterAll(async () => store?.close());

/** Calls on this pixel's order settings, counted per operation. */
function onSettings(pixelId: string, plan: (operation: string, nth: number) => ReturnType<Fault>): Fault {
  const seen = new Map<string, number>();
  return ({ operation, body }) => {
    if (!body.includes(`PIXEL#${pixelId}"`) || !body.includes('ORDER_SETTINGS')) return undefined;
    const nth = (seen.get(operation) ?? 0) + 1;
    seen.set(operation, nth);
    return plan(operation, nth);
  };
}

const scenarios: Array<{ name: string; remainingMs: number; plan: (operation: string, nth: number) => ReturnType<Fault>; expected: number }> = [
  { name: 'a slow but timely write', remainingMs: 5_000, plan: (op) => (op === 'PutItem' ? { delayRequestMs: 700 } : undefined), expected: 200 },
  {
    name: "the write's answer is lost, with time to send it again",
    remainingMs: 8_000,
    plan: (op, nth) => (op === 'PutItem' && nth === 1 ? { delayResponseMs: 1_500 } : undefined),
    expected: 200,
  },
  {
    name: "the write's answer is lost, with only time to read what was stored",
    remainingMs: 3_000,
    plan: (op, nth) => (op === 'PutItem' && nth === 1 ? { delayResponseMs: 1_500 } : undefined),
    expected: 200,
  },
  { name: 'too little time left to start the write', remainingMs: 2_000, plan: () => undefined, expected: 503 },
  {
    name: 'a slow read leaves too little time for the write',
    remainingMs: 3_400,
    plan: (op) => (op === 'GetItem' ? { delayRequestMs: 900 } : undefined),
    expected: 503,
  },
  {
    name: "the write's answer is lost and so is the read that would tell",
    remainingMs: 3_000,
    plan: (op, nth) => (op === 'PutItem' ? { delayResponseMs: 1_500 } : op === 'GetItem' && nth > 1 ? { delayResponseMs: 1_500 } : undefined),
    expected: 500,
  },
];

describe('a PUT of order settings under a slow store near the deadline', () => {
  it.each(scenarios.map((scenario, index) => ({ ...scenario, index })))('$name: answers $expected, and the answer matches the store', async ({ index, remainingMs, plan, expected }) => {
    const pixelId = `px_deadline_${index}`;
    const { apiKey } = await handlers.mintApiKey({ pixelId, scopes: ['account:write'] });
    const headers = { 'x-api-key': apiKey, 'x-pixel-id': pixelId };
    const body = validSettings({ countPendingOrders: true, exclusionFilters: [{ ...validSettings().exclusionFilters[0], name: `scenario ${index}` }] });

    store.inject(onSettings(pixelId, plan));
    const event = apiEvent({ method: 'PUT', path: PATH, headers, body });
    const deadline = Date.now() + remainingMs;
    const context = { ...lambdaContext('putOrderSettings', event.requestContext.requestId), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
    const response = (await handlers.put(event, context)) as APIGatewayProxyStructuredResultV2;
    store.inject(() => undefined);
    // Anything still in flight lands before the store is read.
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const stored = JSON.parse(
      ((await handlers.get(apiEvent({ method: 'GET', path: PATH, headers }), lambdaContext('get', 'r'))) as APIGatewayProxyStructuredResultV2).body!,
    ).orderSettings;

    expect(response.statusCode).toBe(expected);
    const answer = JSON.parse(response.body!);
    if (response.statusCode === 200) expect(stored).toEqual(answer.orderSettings);
    if (response.statusCode === 503) expect(stored).toEqual(DEFAULTS);
    if (response.statusCode === 500) {
      // The case a 503 would have lied about: the write did commit, but the service could not tell in time.
      expect(answer).toEqual({ message: 'Internal server error', requestId: event.requestContext.requestId });
      expect(stored.exclusionFilters[0].name).toBe(`scenario ${index}`);
    }
  });
});

/** The log appends of this pixel's event batches, counted. */
function onLog(pixelId: string, plan: (nth: number) => ReturnType<Fault>): Fault {
  let seen = 0;
  return ({ operation, body }) => (operation === 'PutItem' && body.includes(`PIXEL#${pixelId}#LOG`) ? plan(++seen) : undefined);
}

const appendScenarios: Array<{ name: string; remainingMs: number; plan: Fault; reads?: Fault; expected: number; stored: number }> = [
  { name: "the append's answer is lost, with time to send it again", remainingMs: 8_000, plan: () => undefined, expected: 200, stored: 1 },
  { name: 'too little time left to start the append', remainingMs: 1_000, plan: () => undefined, expected: 503, stored: 0 },
  { name: "the append's answer is lost and so is every read that would tell", remainingMs: 4_000, plan: () => undefined, reads: () => ({ delayResponseMs: 1_500 }), expected: 500, stored: 1 },
];

describe('a POST of events under a slow store near the deadline', () => {
  it.each(appendScenarios.map((scenario, index) => ({ ...scenario, index })))('$name: answers $expected, and the log holds $stored entry', async ({ index, remainingMs, reads, expected, stored }) => {
    const pixelId = `px_append_${index}`;
    const { apiKey } = await handlers.mintApiKey({ pixelId, scopes: ['events:write'] });
    // The first append's answer comes after the attempt has timed out: the write landed, the client does not know.
    const appends = onLog(pixelId, (nth) => (nth === 1 ? { delayResponseMs: 1_500 } : undefined));
    store.inject((call) => appends(call) ?? (call.operation === 'GetItem' && call.body.includes(`PIXEL#${pixelId}#LOG`) ? reads?.(call) : undefined));
    const event = apiEvent({ method: 'POST', path: '/tr/api/events', headers: { 'x-api-key': apiKey, 'x-pixel-id': pixelId }, body: { events: [{ name: 'page_view', eventId: `e-${index}` }] } });
    const deadline = Date.now() + remainingMs;
    const context = { ...lambdaContext('ingestEvents', event.requestContext.requestId), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
    const response = (await handlers.ingest(event, context)) as APIGatewayProxyStructuredResultV2;
    store.inject(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const { documentClient, tableName } = await import('../../shared/store/dynamo-client');
    const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
    const log = await documentClient.send(new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': `PIXEL#${pixelId}#LOG` } }));

    expect(response.statusCode).toBe(expected);
    expect(log.Items).toHaveLength(stored);
    if (expected === 200) expect(JSON.parse(response.body!)).toEqual({ success: true, eventsIngested: 1 });
    if (expected === 500) expect(JSON.parse(response.body!)).toMatchObject({ message: 'Internal server error', requestId: event.requestContext.requestId, error: { code: 'internal_error' } });
  });
});

describe('store calls that were never sent', () => {
  it('a burst on a slow store is answered 200 every time, and every request is counted', async () => {
    const pixelId = 'px_burst';
    const { apiKey } = await handlers.mintApiKey({ pixelId, scopes: ['account:read'] });
    const headers = { 'x-api-key': apiKey, 'x-pixel-id': pixelId };
    // Each counting call is held 700 ms by the store: more calls at once than a socket pool of 50
    // would take, so a call queued for a socket would time out before it was sent.
    store.inject(({ operation, body }) => (operation === 'UpdateItem' && body.includes('APIKEY#') ? { delayRequestMs: 700 } : undefined));
    const responses = await Promise.all(
      Array.from({ length: 120 }, async (_, index) => {
        const event = apiEvent({ method: 'GET', path: PATH, headers });
        const deadline = Date.now() + 10_000;
        const context = { ...lambdaContext(`burst-${index}`, event.requestContext.requestId), getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()) };
        return (await handlers.get(event, context)) as APIGatewayProxyStructuredResultV2;
      }),
    );
    store.inject(() => undefined);
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // Every request of the burst was counted (a count whose answer was lost may count twice).
    const next = (await handlers.get(apiEvent({ method: 'GET', path: PATH, headers }), lambdaContext('after', 'r'))) as APIGatewayProxyStructuredResultV2;
    expect(Number(/r=(\d+)/.exec(String(next.headers!.ratelimit))![1])).toBeLessThanOrEqual(1_200 - 121);
  }, 30_000);

  it('a store that refuses connections is tried until the deadline, then fails as not started (a 503), never as an unknown outcome', async () => {
    const { apiKey } = await handlers.mintApiKey({ pixelId: 'px_refused', scopes: ['account:read'] });
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const { GetItemCommand } = await import('@aws-sdk/client-dynamodb');
    const { storeClientConfig, holdToRequestDeadline, POINT_ATTEMPT_TIMEOUT_MS } = await import('../../shared/store/sdk-config');
    const { withDeadline } = await import('../../shared/request-deadline');
    const { NotStartedError, isWriteOutcomeUnknown } = await import('../../shared/faults');
    // A port nothing listens on: every attempt is refused before a byte is sent.
    const closed = await import('node:net').then(({ createServer }) => new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as import('node:net').AddressInfo;
        server.close(() => resolve(port));
      });
    }));
    const client = new DynamoDBClient({ ...storeClientConfig(POINT_ATTEMPT_TIMEOUT_MS), endpoint: `http://127.0.0.1:${closed}` });
    holdToRequestDeadline(client, POINT_ATTEMPT_TIMEOUT_MS);
    const started = Date.now();
    const failure = await withDeadline(Date.now() + 3_000, () =>
      client.send(new GetItemCommand({ TableName: 't', Key: { PK: { S: apiKey } } })).then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
    expect(failure).toBeInstanceOf(NotStartedError);
    expect(isWriteOutcomeUnknown(failure)).toBe(false);
    // It kept trying until too little time was left for another attempt, not only the SDK's 3 attempts.
    expect(Date.now() - started).toBeGreaterThan(1_000);
  });
});
