import { createHash } from 'node:crypto';
import { BatchWriteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/tr/ingest-events';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { logger } from '../../shared/config/logger';
import { bulkDocumentClient, documentClient } from '../../shared/store/dynamo-client';
import { readEvents as readStoredEvents } from '../../shared/store/event-repository';
import { getOrder as getStoredOrder } from '../../shared/analytics/store/order-store';
import { drainPipeline } from '../support/pipeline';
import { apiEvent, invoke } from '../support/api-event';
import { wholeTableText } from '../support/event-store';
import { pageView, purchaseEvent } from '../support/event-fixtures';
import { useFreshTable } from '../support/fresh-table';

const PATH = '/tr/api/events';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const DAY = [new Date('2026-03-10T00:00:00Z'), new Date('2026-03-11T00:00:00Z')] as const;

/** Reads go through the pipeline first: what was accepted is projected, as the drain would. */
const readEvents = async (...args: Parameters<typeof readStoredEvents>) => {
  await drainPipeline();
  return readStoredEvents(...args);
};
const getOrder = async (...args: Parameters<typeof getStoredOrder>) => {
  await drainPipeline();
  return getStoredOrder(...args);
};

beforeAll(async () => {
  await useFreshTable();
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function clientFor(pixelId: string) {
  const { apiKey } = await mintApiKey({ pixelId, scopes: ['events:write'] });
  const headers = { 'x-api-key': apiKey, 'x-pixel-id': pixelId };
  return (body: unknown, now = new Date('2026-03-10T12:00:00.000Z')) => invoke(handler, apiEvent({ method: 'POST', path: PATH, headers, body, now }));
}

/** Makes the `nth` call of a command kind fail once with a throttling error; every other call goes through. */
function failNth(kind: typeof PutCommand | typeof BatchWriteCommand, nth: number) {
  // Batch calls go through the store's bulk client, single-item calls through the point client.
  const client = kind === BatchWriteCommand ? bulkDocumentClient : documentClient;
  const send = client.send.bind(client);
  let seen = 0;
  return vi.spyOn(client, 'send').mockImplementation((async (command: unknown) => {
    if (command instanceof kind && ++seen === nth) {
      throw Object.assign(new Error('Throughput exceeds the current capacity'), { name: 'ProvisionedThroughputExceededException' });
    }
    return send(command as never);
  }) as never);
}

describe('storing events (real SDK, dynalite)', () => {
  it('stores a batch readable by pixel and time range, and nothing for another pixel', async () => {
    const post = await clientFor('px_store');
    const response = await post({
      events: [
        pageView({ eventId: 'a', timestamp: '2026-03-10T09:00:00Z' }),
        pageView({ eventId: 'b', timestamp: '2026-03-10T10:00:00Z', page: { url: 'https://shop.example/?utm_source=meta&utm_campaign=spring' } }),
        { name: 'newsletter_popup_closed', eventId: 'c', timestamp: '2026-03-10T11:00:00Z', data: { variant: 'B', seconds: 3 } },
      ],
    });

    expect(response).toMatchObject({ status: 200, body: { success: true, eventsIngested: 3 } });
    const events = await readEvents('px_store', ...DAY);
    expect(events.map((event) => [event.eventId, event.name, event.standard])).toEqual([
      ['a', 'page_view', true],
      ['b', 'page_view', true],
      ['c', 'newsletter_popup_closed', false],
    ]);
    expect(events[1]!.utm).toEqual({ utm_source: 'meta', utm_campaign: 'spring' });
    expect(events[2]!.data).toEqual({ variant: 'B', seconds: 3 });
    expect(await readEvents('px_other', ...DAY)).toEqual([]);
  });

  it('answers the single-event form with the event id, the server assigning one when the client sent none', async () => {
    const post = await clientFor('px_single');
    const withoutId = await post(pageView());
    const withId = await post(pageView({ eventId: 'client-chosen' }));

    expect(withoutId.body).toEqual({ success: true, eventId: expect.stringMatching(/^[0-9A-Z]{26}$/) });
    expect(withId.body).toEqual({ success: true, eventId: 'client-chosen' });
    const stored = await readEvents('px_single', ...DAY);
    expect(stored.map((event) => [event.eventId, event.eventIdSource, event.timestamp])).toEqual(
      expect.arrayContaining([
        [withoutId.body!.eventId, 'server', '2026-03-10T12:00:00.000Z'],
        ['client-chosen', 'client', '2026-03-10T12:00:00.000Z'],
      ]),
    );
  });

  it('stores nothing of a batch with one invalid event', async () => {
    const post = await clientFor('px_invalid');
    const response = await post({ events: [pageView({ eventId: 'ok' }), purchaseEvent({ data: { currency: 'DOLLARS-US-X' } })] });
    expect(response.status).toBe(400);
    expect(await readEvents('px_invalid', ...DAY)).toEqual([]);
    expect(await getOrder('px_invalid', '10421')).toBeUndefined();
  });
});

describe('idempotency', () => {
  it('stores an eventId sent twice once, at the time of its first delivery, even when the time defaulted', async () => {
    const post = await clientFor('px_idem');
    await post(pageView({ eventId: 'same' }), new Date('2026-03-10T12:00:00.000Z'));
    const again = await post(pageView({ eventId: 'same', page: { url: 'https://shop.example/changed' } }), new Date('2026-03-10T12:00:07.000Z'));

    expect(again.body).toEqual({ success: true, eventId: 'same' });
    expect((await readEvents('px_idem', ...DAY)).map((event) => [event.eventId, event.timestamp, event.page?.url])).toEqual([
      ['same', '2026-03-10T12:00:00.000Z', 'https://shop.example/'],
    ]);
  });

  it('stores a repeated eventId within one batch once', async () => {
    const post = await clientFor('px_idem_batch');
    const response = await post({ events: [pageView({ eventId: 'dup' }), pageView({ eventId: 'dup' }), pageView({ eventId: 'other' })] });
    expect(response.body).toEqual({ success: true, eventsIngested: 3 });
    expect((await readEvents('px_idem_batch', ...DAY)).map((event) => event.eventId).sort()).toEqual(['dup', 'other']);
  });

  it('keeps one event per eventId when the same request races itself', async () => {
    const post = await clientFor('px_race');
    const events = Array.from({ length: 20 }, (_, i) => pageView({ eventId: `race-${i}` }));
    const responses = await Promise.all([post({ events }), post({ events }, new Date('2026-03-10T12:00:01Z')), post({ events })]);
    expect(responses.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(await readEvents('px_race', ...DAY)).toHaveLength(20);
  });

  it('answers a failed log write with a retryable 503 and stores nothing; the retry stores every event once', async () => {
    const post = await clientFor('px_fault_accept');
    const events = Array.from({ length: 100 }, (_, i) => pageView({ eventId: `ev-${i}`, ...(i % 2 === 0 ? {} : { timestamp: '2026-03-10T11:00:00Z' }) }));
    const fault = failNth(PutCommand, 1);

    const first = await post({ events }, new Date('2026-03-10T12:00:00Z'));
    expect(first.status).toBe(503);
    expect(first.body).toMatchObject({ error: { code: 'service_unavailable' } });
    fault.mockRestore();
    expect(await readEvents('px_fault_accept', ...DAY)).toEqual([]);

    const retry = await post({ events }, new Date('2026-03-10T12:00:30Z'));
    expect(retry.body).toEqual({ success: true, eventsIngested: 100 });
    const stored = await readEvents('px_fault_accept', ...DAY);
    expect(stored).toHaveLength(100);
    expect(new Set(stored.map((event) => event.eventId)).size).toBe(100);
  });

  it('stores every event once when an accepted request is retried because its answer was lost', async () => {
    const post = await clientFor('px_lost_answer');
    const eventIds = Array.from({ length: 30 }, (_, i) => `lost-${i}`);
    const events = eventIds.map((eventId) => pageView({ eventId }));
    await post({ events }, new Date('2026-03-10T12:00:00Z'));
    await post({ events }, new Date('2026-03-10T12:00:05Z'));
    const stored = await readEvents('px_lost_answer', ...DAY);
    expect(stored.map((event) => event.eventId).sort()).toEqual([...eventIds].sort());
    expect(new Set(stored.map((event) => event.timestamp))).toEqual(new Set(['2026-03-10T12:00:00.000Z']));
  });

  it('accepts a request with one write: the log item', async () => {
    const post = await clientFor('px_one_write');
    const spy = vi.spyOn(documentClient, 'send');
    await post({ events: Array.from({ length: 100 }, (_, i) => pageView({ eventId: `one-${i}` })) });
    // The key's own read is an UpdateItem that counts the request against its quota (README "Rate
    // limits"); it touches the key item only. Everything the request stores is one PutItem.
    const isKeyRead = (command: { input: { Key?: { PK?: unknown } } }) => String(command.input.Key?.PK ?? '').startsWith('APIKEY#');
    const writes = spy.mock.calls
      .map(([command]) => command as unknown as { constructor: { name: string }; input: { Key?: { PK?: unknown } } })
      .filter((command) => !isKeyRead(command))
      .map((command) => command.constructor.name)
      .filter((name) => ['PutCommand', 'BatchWriteCommand', 'UpdateCommand', 'DeleteCommand'].includes(name));
    expect(writes).toEqual(['PutCommand']);
  });
});

describe('personal data', () => {
  const EMAIL = 'Jane.Doe+Leak@Example.com';
  const PHONE = '+1 (415) 555-0199';

  it('stores emails and phones only as SHA-256 of their normal form, nowhere in the table raw', async () => {
    const post = await clientFor('px_pii');
    await post({ events: [purchaseEvent({ eventId: 'pii-1', user: { emails: [EMAIL], phones: [PHONE] } }), pageView({ eventId: 'pii-2', user: { emails: [EMAIL] } })] });

    const table = await wholeTableText();
    for (const raw of [EMAIL, EMAIL.toLowerCase(), 'jane.doe+leak', PHONE, '+14155550199', '4155550199']) expect(table).not.toContain(raw);
    expect(table).toContain(sha256('jane.doe+leak@example.com'));
    expect(table).toContain(sha256('+14155550199'));
    const [stored] = await readEvents('px_pii', ...DAY);
    expect(stored!.user).toEqual({ emailHashes: [sha256('jane.doe+leak@example.com')], phoneHashes: [sha256('+14155550199')] });
  });

  it('never writes an email or phone to the logs, even on errors', async () => {
    const post = await clientFor('px_pii_logs');
    const written: string[] = [];
    const capture = (chunk: unknown) => {
      written.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stdout, 'write').mockImplementation(capture as never);
    vi.spyOn(process.stderr, 'write').mockImplementation(capture as never);
    // The logger's middleware puts the level back to the configured one (SILENT in tests) at every
    // invocation; keep the level this test raises it to.
    vi.spyOn(logger, 'refreshSampleRateCalculation').mockImplementation(() => undefined);
    logger.setLogLevel('DEBUG');
    try {
      const body = { events: [purchaseEvent({ user: { emails: [EMAIL, 'not-an-email'], phones: [PHONE] } })] };
      expect((await post(body)).status).toBe(400);
      failNth(PutCommand, 1);
      expect((await post({ events: [purchaseEvent({ user: { emails: [EMAIL], phones: [PHONE] } })] })).status).toBe(503);
    } finally {
      logger.setLogLevel('SILENT');
      vi.restoreAllMocks();
    }
    const logs = written.join('');
    expect(logs).toContain('Events request failed on a retryable fault');
    for (const raw of [EMAIL, EMAIL.toLowerCase(), PHONE, '4155550199']) expect(logs).not.toContain(raw);
  });
});

describe('the order store, from purchase events', () => {
  it('creates the order with every exclusion-filter field, and merges later events without losing what they leave out', async () => {
    const post = await clientFor('px_orders');
    await post(purchaseEvent({ eventId: 'p1', timestamp: '2026-03-10T09:00:00Z' }));
    expect(await getOrder('px_orders', '10421')).toEqual({
      orderId: '10421',
      orderDate: '2026-03-10T09:00:00.000Z',
      value: 99.9,
      currency: 'USD',
      sourceName: 'web',
      tags: ['vip'],
      paymentGateway: 'stripe',
      financialStatus: 'paid',
      refunds: [],
      customer: { emailHashes: [sha256('jane.doe@example.com')], phoneHashes: [sha256('+14155550100')], userIds: ['cust_889'] },
      // data.items in the order's words: the item id is the product id, its name the title.
      items: [{ productId: 'SKU1', title: 'Tee', quantity: 2, price: 49.95 }],
      createdAt: '2026-03-10T12:00:00.000Z',
      updatedAt: '2026-03-10T12:00:00.000Z',
    });

    await post(
      {
        name: 'purchase',
        eventId: 'p2',
        timestamp: '2026-03-10T11:00:00Z',
        user: { userIds: ['cust_889', 'cust_alt'] },
        data: { orderId: '10421', financialStatus: 'partially_refunded', refunds: [{ amount: 20, processedAt: '2026-03-10T10:59:00Z' }] },
      },
      new Date('2026-03-10T12:01:00Z'),
    );
    expect(await getOrder('px_orders', '10421')).toMatchObject({
      orderDate: '2026-03-10T09:00:00.000Z',
      value: 99.9,
      tags: ['vip'],
      financialStatus: 'partially_refunded',
      refunds: [{ amount: 20, processedAt: '2026-03-10T10:59:00.000Z' }],
      customer: { userIds: ['cust_889', 'cust_alt'] },
      updatedAt: '2026-03-10T12:01:00.000Z',
    });

    // A retried older event changes nothing: the order is not rolled back to `paid`.
    await post(purchaseEvent({ eventId: 'p1', timestamp: '2026-03-10T09:00:00Z' }), new Date('2026-03-10T12:02:00Z'));
    expect(await getOrder('px_orders', '10421')).toMatchObject({ financialStatus: 'partially_refunded', updatedAt: '2026-03-10T12:01:00.000Z' });
  });

  it('only purchase events with an orderId touch orders', async () => {
    const post = await clientFor('px_not_orders');
    await post({
      events: [
        pageView({ data: { orderId: 'o-page' } }),
        purchaseEvent({ eventId: 'no-order', data: { value: 5, currency: 'USD' } }),
        { name: 'Purchase', data: { orderId: 'o-custom' } },
      ],
    });
    for (const orderId of ['o-page', 'o-custom']) expect(await getOrder('px_not_orders', orderId)).toBeUndefined();
  });

  it('loses no field when events about one order arrive at the same time', async () => {
    const post = await clientFor('px_order_race');
    const fields = [{ sourceName: 'pos' }, { tags: ['b2b'] }, { paymentGateway: 'adyen' }, { value: 10, currency: 'EUR' }];
    await Promise.all(
      fields.map((data, i) => post({ name: 'purchase', eventId: `r${i}`, timestamp: `2026-03-10T10:0${i}:00Z`, data: { orderId: 'o-race', ...data } })),
    );
    expect(await getOrder('px_order_race', 'o-race')).toMatchObject({ sourceName: 'pos', tags: ['b2b'], paymentGateway: 'adyen', value: 10, currency: 'EUR' });
  });
});
