import { execFile } from 'node:child_process';
import { gunzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import { fileKeyOf } from '../../shared/analytics/store/partitions';
import { CURRENT_ORDERS_SQL } from '../../shared/analytics/store/tables';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pageView, purchaseEvent } from '../support/event-fixtures';
import { call, mintKey, pipelineDrained, startLocalServer, type RunningServer } from '../support/local-server';

const PATH = '/tr/api/events';
const EMAIL = 'E2E.Shopper@Example.org';
const PHONE = '+33 6 12 34 56 78';
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let server: RunningServer;
let store: DynamoDBDocumentClient;
let headers: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), 'events-e2e-'));

beforeAll(async () => {
  server = await startLocalServer();
  const key = await mintKey(server, 'px_events', 'events:write');
  headers = { 'x-api-key': key.apiKey, 'x-pixel-id': 'px_events' };
  store = DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: `http://127.0.0.1:${server.env.DYNAMODB_PORT}`, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
  );
});
afterAll(async () => {
  store?.destroy();
  await server?.stop();
});

const TABLE = 'merchant-analytics-local';

async function allItems(): Promise<Array<Record<string, any>>> {
  const items: Array<Record<string, any>> = [];
  let start: ScanCommandOutput['LastEvaluatedKey'];
  do {
    const page = await store.send(new ScanCommand({ TableName: TABLE, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The pixel's stored events, unpacked from their pages, once the pipeline has projected everything accepted. */
async function storedEventsOf(pixelId: string): Promise<Array<Record<string, any>>> {
  await pipelineDrained(server);
  return (await allItems())
    .filter((item) => String(item.PK).startsWith(`PIXEL#${pixelId}#EV#`) && item.data)
    .flatMap((page) => {
      const superseded = (page.superseded as Set<string> | undefined) ?? new Set();
      return (JSON.parse(gunzipSync(page.data).toString('utf8')) as Array<Record<string, any>>).filter((event) => !superseded.has(event.eventId));
    });
}

/**
 * An order as the server's analytics store holds it, read as every reader reads it: the live
 * files of the orders table (listed in the server's store), the current version of the order.
 */
async function orderOf(pixelId: string, orderId: string): Promise<Record<string, unknown> | undefined> {
  await pipelineDrained(server);
  const partitions = (await allItems()).filter((item) => item.PK === `PIXEL#${pixelId}#PARQUET#orders`);
  const paths = partitions.flatMap((item) => [...(item.files as Set<string>)].map((name) => join(server.env.DATA_DIR!, 'analytics', fileKeyOf('orders', pixelId, item.SK as string, name))));
  if (paths.length === 0) return undefined;
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    const rows = (await connection.runAndReadAll(
      `SELECT value, currency, source_name, tags, payment_gateway, financial_status, refunds, email_hashes, phone_hashes, user_ids
       FROM (${CURRENT_ORDERS_SQL(`read_parquet([${paths.map((path) => `'${path}'`).join(', ')}])`)}) WHERE order_id = $orderId AND NOT deleted`,
      { orderId },
    )).getRowObjectsJS();
    const [row] = rows;
    return row === undefined
      ? undefined
      : {
          value: row.value,
          currency: row.currency,
          sourceName: row.source_name,
          tags: row.tags,
          paymentGateway: row.payment_gateway,
          financialStatus: row.financial_status,
          refunds: JSON.parse(row.refunds as string),
          customer: { emailHashes: row.email_hashes, phoneHashes: row.phone_hashes, userIds: row.user_ids },
        };
  } finally {
    connection.closeSync();
  }
}

/** Every row of every file of the server's analytics store, as text. */
async function analyticsStoreText(): Promise<string> {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const connection = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    const texts: string[] = [];
    for (const table of ['events', 'orders']) {
      const rows = (await connection.runAndReadAll(`SELECT CAST(to_json(list(t)) AS VARCHAR) AS rows FROM read_parquet('${join(server.env.DATA_DIR!, 'analytics', table)}/**/*.parquet') AS t`)).getRowObjectsJS();
      texts.push(String(rows[0]?.rows));
    }
    return texts.join('\n');
  } finally {
    connection.closeSync();
  }
}

function importOrders(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'bin/import-orders.ts', ...args], { env: server.env }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** POSTs raw bytes to the events API, as a client whose text is not what it claims would. */
async function postBytes(bytes: Buffer, contentType: string, as: Record<string, string>) {
  const response = await fetch(server.url + PATH, { method: 'POST', headers: { ...as, 'content-type': contentType }, body: bytes });
  return { status: response.status, requestId: response.headers.get('x-request-id'), body: (await response.json()) as unknown };
}

/** One event as a body of exactly `bytes` bytes: its `data.note` is `fill` repeated `times`, then `x` up to the size. */
function eventOfSize(bytes: number, eventId: string, fill: Buffer, times: number): Buffer {
  const [head, tail] = JSON.stringify(pageView({ eventId, data: { note: '@NOTE@' } })).split('@NOTE@') as [string, string];
  const fills = Buffer.concat(Array.from({ length: times }, () => fill));
  const padding = bytes - Buffer.byteLength(head) - fills.length - Buffer.byteLength(tail);
  return Buffer.concat([Buffer.from(head), fills, Buffer.alloc(padding, 'x'), Buffer.from(tail)]);
}

const NOT_UTF8 = Buffer.from([0xff, 0xc3, 0x28]);

describe('POST /tr/api/events through the local server', () => {
  it('ingests a batch and a single event', async () => {
    const batch = await call(server, 'POST', PATH, { headers, body: { events: [pageView({ eventId: 'e2e-1' }), pageView({ eventId: 'e2e-2' })] } });
    expect(batch).toMatchObject({ status: 200, body: { success: true, eventsIngested: 2 } });
    const single = await call(server, 'POST', PATH, { headers, body: pageView() });
    expect(single).toMatchObject({ status: 200, body: { success: true, eventId: expect.stringMatching(/^[0-9A-Z]{26}$/) } });
    expect(single.headers.get('x-request-id')).toBeTruthy();
    expect(await storedEventsOf('px_events')).toHaveLength(3);
  });

  it('answers a body over 128 KB with 413 in the events envelope', async () => {
    const body = JSON.stringify({ events: [pageView({ data: { note: 'x'.repeat(128 * 1024) } })] });
    const response = await call(server, 'POST', PATH, { headers, body });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ message: expect.any(String), requestId: response.headers.get('x-request-id'), error: { code: 'payload_too_large', details: [] } });
  });

  it('answers a body that is not valid UTF-8 with 400 malformed_body whatever its content type, and stores nothing of it', async () => {
    const key = await mintKey(server, 'px_utf8', 'events:write');
    const as = { 'x-api-key': key.apiKey, 'x-pixel-id': 'px_utf8' };
    for (const type of ['application/json', 'text/plain']) {
      const response = await postBytes(eventOfSize(1_000, `not-utf8-${type}`, NOT_UTF8, 1), type, as);
      expect(response).toEqual({
        status: 400,
        requestId: expect.any(String),
        body: { message: 'Request body is not valid UTF-8', requestId: response.requestId, error: { code: 'malformed_body', details: [] } },
      });
    }
    // The same body with valid text is stored: the two above would have been, had they been read.
    const valid = await postBytes(eventOfSize(1_000, 'utf8-valid', Buffer.from('é'), 1), 'application/json', as);
    expect(valid).toMatchObject({ status: 200, body: { success: true, eventId: 'utf8-valid' } });
    expect((await storedEventsOf('px_utf8')).map((event) => event.eventId)).toEqual(['utf8-valid']);
  });

  it('counts the 128 KB limit in bytes as received', async () => {
    const key = await mintKey(server, 'px_limit', 'events:write');
    const as = { 'x-api-key': key.apiKey, 'x-pixel-id': 'px_limit' };
    // 131,072 bytes received, 1,000 of them invalid sequences: read as text with U+FFFD in their
    // place they would be 135,072 bytes, yet the body is within the limit, so it is refused for what it is.
    const notUtf8 = await postBytes(eventOfSize(131_072, 'limit-not-utf8', NOT_UTF8, 1_000), 'application/json', as);
    expect(notUtf8).toMatchObject({ status: 400, body: { error: { code: 'malformed_body' } } });
    // Two-byte characters count as two.
    const atLimit = await postBytes(eventOfSize(131_072, 'limit-at', Buffer.from('é'), 30_000), 'application/json', as);
    expect(atLimit).toMatchObject({ status: 200, body: { success: true, eventId: 'limit-at' } });
    const overLimit = await postBytes(eventOfSize(131_073, 'limit-over', Buffer.from('é'), 30_000), 'application/json', as);
    expect(overLimit).toMatchObject({ status: 413, body: { error: { code: 'payload_too_large' } } });
    expect((await storedEventsOf('px_limit')).map((event) => event.eventId)).toEqual(['limit-at']);
  });

  it('answers an invalid batch with 400, every problem located, and stores none of it', async () => {
    const response = await call(server, 'POST', PATH, {
      headers,
      body: { events: [pageView({ eventId: 'never-1' }), pageView({ eventId: 'never-2', name: 'page view', data: { currency: 'DOLLARS-AMERICAN' } })] },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      message: '2 problems in the request. Nothing was stored',
      requestId: response.headers.get('x-request-id'),
      error: {
        code: 'validation_failed',
        details: [
          { index: 1, path: ['events', '1', 'name'], code: 'invalid_format', message: expect.any(String) },
          { index: 1, path: ['events', '1', 'data', 'currency'], code: 'too_long', message: expect.any(String) },
        ],
      },
    });
    expect((await storedEventsOf('px_events')).map((event) => event.eventId)).not.toContain('never-1');
  });

  it('answers 401 and 403 in the events envelope', async () => {
    const unauthenticated = await call(server, 'POST', PATH, { headers: { 'x-pixel-id': 'px_events' }, body: pageView() });
    expect(unauthenticated).toMatchObject({ status: 401, body: { error: { code: 'unauthorized', details: [] } } });
    const reader = await mintKey(server, 'px_events', 'analytics:read');
    const forbidden = await call(server, 'POST', PATH, { headers: { 'x-api-key': reader.apiKey, 'x-pixel-id': 'px_events' }, body: pageView() });
    expect(forbidden).toMatchObject({ status: 403, body: { requestId: expect.any(String), error: { code: 'forbidden' } } });
  });

  it('stores a batch sent twice once', async () => {
    const events = Array.from({ length: 100 }, (_, i) => pageView({ eventId: `twice-${i}` }));
    const key = await mintKey(server, 'px_twice', 'events:write');
    const twiceHeaders = { 'x-api-key': key.apiKey, 'x-pixel-id': 'px_twice' };
    for (let i = 0; i < 2; i++) expect((await call(server, 'POST', PATH, { headers: twiceHeaders, body: { events } })).body).toEqual({ success: true, eventsIngested: 100 });
    expect(await storedEventsOf('px_twice')).toHaveLength(100);
  });

  it('keeps emails and phones out of the store and the server output', async () => {
    await call(server, 'POST', PATH, { headers, body: { events: [purchaseEvent({ eventId: 'pii', user: { emails: [EMAIL], phones: [PHONE] }, data: { orderId: 'pii-order', value: 10, currency: 'EUR' } })] } });
    await call(server, 'POST', PATH, { headers, body: { events: [purchaseEvent({ user: { emails: [EMAIL, 'broken'] } })] } });

    await pipelineDrained(server);
    const table = JSON.stringify(await allItems(), (_key, value) => (value instanceof Uint8Array && value[0] === 0x1f && value[1] === 0x8b ? gunzipSync(value).toString('utf8') : value));
    const analytics = await analyticsStoreText();
    expect(analytics).toContain(sha256(EMAIL.toLowerCase()));
    for (const raw of [EMAIL, EMAIL.toLowerCase(), PHONE, '+33612345678']) {
      expect(table).not.toContain(raw);
      expect(analytics).not.toContain(raw);
      expect(server.output()).not.toContain(raw);
    }
    expect(table).toContain(sha256(EMAIL.toLowerCase()));
    expect((await orderOf('px_events', 'pii-order'))?.customer).toEqual({ emailHashes: [sha256(EMAIL.toLowerCase())], phoneHashes: [sha256('+33612345678')], userIds: [] });
  });
});

describe('events posted, then read back through the order store once the drain has projected them', () => {
  it('projects purchases, duplicates and retries into one order, exactly as sent once', async () => {
    const key = await mintKey(server, 'px_flow', 'events:write');
    const flowHeaders = { 'x-api-key': key.apiKey, 'x-pixel-id': 'px_flow' };
    const paid = purchaseEvent({ eventId: 'flow-paid', timestamp: '2026-03-10T09:00:00Z', data: { orderId: 'flow-1', value: 40, currency: 'EUR' } });
    const refunded = {
      name: 'purchase',
      eventId: 'flow-refund',
      timestamp: '2026-03-10T10:00:00Z',
      data: { orderId: 'flow-1', financialStatus: 'refunded', refunds: [{ amount: 40, processedAt: '2026-03-10T10:00:00Z' }] },
    };
    // The refund arrives first, the paid event twice (a retry), one of them inside a batch with the refund again.
    for (const body of [refunded, { events: [paid, refunded] }, paid]) {
      expect((await call(server, 'POST', PATH, { headers: flowHeaders, body })).status).toBe(200);
    }

    expect(await orderOf('px_flow', 'flow-1')).toMatchObject({ value: 40, currency: 'EUR', financialStatus: 'refunded', refunds: [{ amount: 40 }] });
    expect((await storedEventsOf('px_flow')).map((event) => event.eventId).sort()).toEqual(['flow-paid', 'flow-refund']);
  });
});

describe('npm run rebuild-read-models', () => {
  it('replays the pixel’s stored events and orders, and names an unknown read model', async () => {
    await pipelineDrained(server);
    const rebuild = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(process.execPath, ['--import', 'tsx', 'bin/rebuild-read-models.ts', ...args], { env: server.env }, (error, stdout, stderr) => {
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
        });
      });
    const all = await rebuild('--pixel', 'px_flow', '--from', '2026-03-01', '--to', '2026-03-31');
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^Replayed 2 events \(\d+ log entries\) and 1 orders of pixel px_flow through /);
    const unknown = await rebuild('--pixel', 'px_flow', '--projector', 'no-such-model');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("No read model is named 'no-such-model'");
  });
});

describe('npm run import-orders', () => {
  const file = (name: string, lines: unknown[]) => {
    const path = join(dir, name);
    writeFileSync(path, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n'));
    return path;
  };
  const line = (orderId: string, extra: Record<string, unknown> = {}) => ({ orderId, orderDate: '2026-03-01T10:00:00Z', value: 30, currency: 'USD', ...extra });

  it('backfills orders into the running server’s store, merging with a purchase event’s order, exit 0', async () => {
    await call(server, 'POST', PATH, { headers, body: purchaseEvent({ eventId: 'live-order', data: { orderId: 'shared-1', value: 99, currency: 'USD' } }) });
    const path = file('orders.ndjson', [line('hist-1', { sourceName: 'pos', tags: ['wholesale'], paymentGateway: 'cash' }), line('shared-1', { tags: ['from-export'], updatedAt: '2026-03-02T00:00:00Z' })]);

    const result = await importOrders('--pixel', 'px_events', '--file', path);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe('Imported 2 orders into pixel px_events (1 new, 1 updated, 0 unchanged)\n');
    expect(await orderOf('px_events', 'hist-1')).toMatchObject({ sourceName: 'pos', tags: ['wholesale'], value: 30, paymentGateway: 'cash', financialStatus: 'paid' });
    // The event is newer than the export's updatedAt: its value stays; the export fills the tags it did not state.
    expect(await orderOf('px_events', 'shared-1')).toMatchObject({ value: 99, tags: ['from-export'] });
  });

  it('imports the valid lines, reports each rejected line on stderr, exit 1', async () => {
    const path = file('some-bad.ndjson', [line('ok-1'), line('bad-1', { financialStatus: 'settled' }), 'nope', line('ok-2')]);
    const result = await importOrders('--pixel', 'px_events', '--file', path);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('Imported 2 orders into pixel px_events (2 new, 0 updated, 0 unchanged; 2 lines rejected)\n');
    expect(result.stderr.split('\n').filter((text) => text.startsWith('Rejected '))).toEqual([
      expect.stringMatching(/^Rejected line 2: financialStatus: /),
      'Rejected line 3: Not valid JSON',
    ]);
  });

  it.each([
    ['no --pixel', ['--file', 'x.ndjson'], '--pixel is required'],
    ['a JSON document', ['--pixel', 'px_events', '--file', 'orders.json'], 'unsupported file type'],
    ['a missing file', ['--pixel', 'px_events', '--file', '/nonexistent/orders.ndjson'], 'no such file'],
  ])('exits 2 with the usage on %s', async (_, args, message) => {
    const result = await importOrders(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage:');
  });
});
