import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/tr/ingest-events';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { formatRejection, type ImportRejection } from '../../shared/import/rejections';
import { formatOrderImportSummary, importOrdersFile, OrderImportFileError } from '../../shared/orders/import-orders';
import { getOrder, readOrders } from '../../shared/analytics/store/order-store';
import { apiEvent, invoke } from '../support/api-event';
import { wholeTableText } from '../support/event-store';
import { useFreshTable } from '../support/fresh-table';
import { drainPipeline } from '../support/pipeline';

const dir = mkdtempSync(join(tmpdir(), 'import-orders-'));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const IMPORTED_AT = new Date('2026-03-20T00:00:00.000Z');

beforeAll(async () => {
  await useFreshTable();
});

function ndjson(name: string, lines: unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n'));
  return path;
}

async function importFile(pixelId: string, path: string, options: { batchSize?: number } = {}) {
  const rejections: ImportRejection[] = [];
  const summary = await importOrdersFile(pixelId, path, { onRejection: (rejection) => rejections.push(rejection), importedAt: IMPORTED_AT, ...options });
  return { summary, rejections: rejections.map(formatRejection) };
}

const order = (overrides: Record<string, unknown> = {}) => ({
  orderId: '1001',
  orderDate: '2026-03-01T10:00:00Z',
  value: 120.5,
  currency: 'EUR',
  sourceName: 'pos',
  tags: ['wholesale', 'b2b'],
  paymentGateway: 'adyen',
  financialStatus: 'partially_refunded',
  refunds: [{ amount: 20, processedAt: '2026-03-03T09:00:00Z' }],
  customer: { emails: ['Buyer@Example.com'], phones: ['+44 20 7946 0958'], userIds: ['c-1'] },
  ...overrides,
});

describe('importing an order export', () => {
  it('stores every valid line with all exclusion-filter fields, and reports each invalid one with line, path and reason', async () => {
    const path = ndjson('mixed.ndjson', [
      order(),
      order({ orderId: '1002', value: -5, currency: 'EURO-ZONE-XX' }),
      '',
      '{"orderId": "1003", ',
      order({ orderId: '1004', financialStatus: undefined, refunds: undefined, tags: undefined, sourceName: undefined, paymentGateway: undefined, customer: undefined }),
      order({ orderId: '1005', customer: { emails: ['not an email'] }, note: 'x' }),
    ]);

    const { summary, rejections } = await importFile('px_import', path);

    expect(summary).toEqual({ orders: 2, created: 2, updated: 0, unchanged: 0, rejected: 3 });
    expect(rejections).toEqual([
      'Rejected line 2: value: Too small: expected number to be >=0; currency: Too big: expected string to have <=10 characters',
      'Rejected line 4: Not valid JSON',
      "Rejected line 6: customer.emails[0]: Must be an email address; note: Unknown key 'note' is not allowed",
    ]);
    expect(await getOrder('px_import', '1001')).toEqual({
      orderId: '1001',
      orderDate: '2026-03-01T10:00:00.000Z',
      value: 120.5,
      currency: 'EUR',
      sourceName: 'pos',
      tags: ['wholesale', 'b2b'],
      paymentGateway: 'adyen',
      financialStatus: 'partially_refunded',
      refunds: [{ amount: 20, processedAt: '2026-03-03T09:00:00.000Z' }],
      customer: { emailHashes: [sha256('buyer@example.com')], phoneHashes: [sha256('+442079460958')], userIds: ['c-1'] },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    // A minimal line still has every field the exclusion filters read.
    expect(await getOrder('px_import', '1004')).toMatchObject({ sourceName: null, tags: [], paymentGateway: null, value: 120.5, financialStatus: 'paid' });
    expect(await wholeTableText()).not.toMatch(/buyer@example\.com|7946 0958/i);
  });

  it('is safe to run again: a second import of the same file changes nothing', async () => {
    const path = ndjson('again.ndjson', [order({ orderId: 'again-1' }), order({ orderId: 'again-2' })]);
    await importFile('px_again', path);
    const before = await getOrder('px_again', 'again-1');
    const { summary } = await importFile('px_again', path);
    expect(summary).toEqual({ orders: 2, created: 0, updated: 0, unchanged: 2, rejected: 0 });
    expect(await getOrder('px_again', 'again-1')).toEqual(before);
  });

  it('merges with what purchase events said, by the same rules', async () => {
    const { apiKey } = await mintApiKey({ pixelId: 'px_merge', scopes: ['events:write'] });
    await invoke(
      handler,
      apiEvent({
        method: 'POST',
        path: '/tr/api/events',
        headers: { 'x-api-key': apiKey, 'x-pixel-id': 'px_merge' },
        body: { name: 'purchase', eventId: 'live-1', timestamp: '2026-03-25T10:00:00Z', user: { emails: ['live@example.com'] }, data: { orderId: 'm-1', value: 50, currency: 'USD', tags: ['live'] } },
        now: new Date('2026-03-25T10:00:01Z'),
      }),
    );
    await drainPipeline();

    // The export is older (updatedAt before the event): it fills what the event did not say and overrides nothing.
    const path = ndjson('merge.ndjson', [order({ orderId: 'm-1', value: 45, tags: ['old'], updatedAt: '2026-03-24T00:00:00Z', customer: { emails: ['buyer@example.com'] } })]);
    expect((await importFile('px_merge', path)).summary).toMatchObject({ updated: 1 });
    expect(await getOrder('px_merge', 'm-1')).toMatchObject({
      value: 50,
      currency: 'USD',
      tags: ['live'],
      sourceName: 'pos',
      paymentGateway: 'adyen',
      financialStatus: 'partially_refunded',
      orderDate: '2026-03-01T10:00:00.000Z',
      customer: { emailHashes: expect.arrayContaining([sha256('live@example.com'), sha256('buyer@example.com')]) },
    });
  });

  it('applies a file in batches, the same order twice in one file as two statements', async () => {
    const path = ndjson('batches.ndjson', [
      ...Array.from({ length: 7 }, (_, i) => order({ orderId: `b-${i}` })),
      order({ orderId: 'b-0', financialStatus: 'refunded', updatedAt: '2026-03-21T00:00:00Z' }),
    ]);
    expect((await importFile('px_batches', path, { batchSize: 3 })).summary).toEqual({ orders: 8, created: 7, updated: 1, unchanged: 0, rejected: 0 });
    expect(await getOrder('px_batches', 'b-0')).toMatchObject({ financialStatus: 'refunded' });
  });

  it('makes orders readable by order date', async () => {
    const path = ndjson('dates.ndjson', [
      order({ orderId: 'd-feb', orderDate: '2026-02-28T23:59:59Z' }),
      order({ orderId: 'd-mar', orderDate: '2026-03-01T00:00:00Z' }),
      order({ orderId: 'd-apr', orderDate: '2026-04-01T00:00:00Z' }),
    ]);
    await importFile('px_dates', path);
    const orders = await readOrders('px_dates', new Date('2026-02-01T00:00:00Z'), new Date('2026-04-01T00:00:00Z'));
    expect(orders.map((stored) => stored.orderId)).toEqual(['d-feb', 'd-mar']);
  });

  it('refuses a line holding what no request body may hold (unstorable numbers, forbidden keys), and imports the rest', async () => {
    const path = ndjson('unreadable.ndjson', [
      '{"orderId": "u-1", "orderDate": "2026-03-01T10:00:00Z", "value": 1e300, "currency": "EUR"}',
      '{"orderId": "u-2", "orderDate": "2026-03-01T10:00:00Z", "value": 10, "currency": "EUR", "customer": {"__proto__": {"admin": true}}}',
      order({ orderId: 'u-3' }),
    ]);
    const { summary, rejections } = await importFile('px_unreadable', path);
    expect(rejections).toEqual([
      'Rejected line 1: value: Number out of range: it must be 0 or have a magnitude from 1e-130 to below 1e126',
      "Rejected line 2: customer.__proto__: Key '__proto__' is not allowed",
    ]);
    expect(summary).toMatchObject({ orders: 1, rejected: 2 });
    expect(await getOrder('px_unreadable', 'u-1')).toBeUndefined();
    expect(await getOrder('px_unreadable', 'u-2')).toBeUndefined();
  });

  it('fails as a whole, storing nothing, when the file cannot be read', async () => {
    await expect(importOrdersFile('px_missing', join(dir, 'missing.ndjson'))).rejects.toBeInstanceOf(OrderImportFileError);
  });

  it('summarises in one line', () => {
    expect(formatOrderImportSummary('px_1', { orders: 1200, created: 1000, updated: 150, unchanged: 50, rejected: 1 })).toBe(
      'Imported 1,200 orders into pixel px_1 (1,000 new, 150 updated, 50 unchanged; 1 line rejected)',
    );
  });
});
