import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { importOrdersFile } from '../../shared/orders/import-orders';
import { projectLogEntries } from '../../shared/pipeline/project-log-entries';
import type { ProjectionBatch, Projector } from '../../shared/pipeline/projector';
import { rebuildReadModels } from '../../shared/pipeline/rebuild-read-models';
import type { LogEntry } from '../../shared/store/log-repository';
import type { StoredEvent } from '../../shared/tracking/stored-event';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { getOrder } from '../../shared/analytics/store/order-store';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { wholeTable } from '../support/event-store';
import { useFreshTable } from '../support/fresh-table';

beforeAll(async () => {
  await useFreshTable();
});

/**
 * A read model written to the projector contract: events per UTC day, keyed by where each stored
 * delivery is (entry and eventId), so seeing an entry twice writes the same keys, and a
 * superseded delivery is taken back by its key; orders by id, overwritten whole.
 */
class EventsPerDay implements Projector {
  readonly name = 'events-per-day';
  readonly contributions = new Map<string, string>();
  readonly orders = new Map<string, number | null>();
  calls = 0;

  async project(batch: ProjectionBatch): Promise<void> {
    this.calls++;
    for (const entry of batch.entries) {
      for (const event of entry.events) this.contributions.set(`${entry.entryId}#${event.eventId}`, event.timestamp.slice(0, 10));
      for (const gone of entry.superseded) this.contributions.delete(`${gone.entryId}#${gone.eventId}`);
    }
    for (const { order } of batch.orders) this.orders.set(order.orderId, order.value);
  }

  perDay(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const day of this.contributions.values()) counts[day] = (counts[day] ?? 0) + 1;
    return counts;
  }
}

const event = (eventId: string, timestamp: string, data?: Record<string, unknown>): StoredEvent => ({
  eventId,
  eventIdSource: 'client',
  name: data ? 'purchase' : 'page_view',
  standard: true,
  timestamp,
  receivedAt: timestamp,
  ...(data ? { data } : {}),
});
const entry = (pixelId: string, n: number, events: StoredEvent[]): LogEntry => ({ pixelId, entryId: `01KPROJ${String(n).padStart(4, '0')}`, acceptedAt: `2026-03-1${n}T00:00:00.000Z`, events });

describe('read-model projectors', () => {
  it('are shown each stored event once, a superseded delivery taken back, and the orders as merged', async () => {
    const model = new EventsPerDay();
    const first = entry('px_model', 1, [event('a', '2026-03-10T10:00:00Z'), event('p', '2026-03-10T11:00:00Z', { orderId: 'o1', value: 10 })]);
    const later = entry('px_model', 2, [event('a', '2026-03-11T10:00:00Z'), event('b', '2026-03-11T10:00:00Z')]);

    // The later duplicate is projected first, then the first delivery, then both again.
    await projectLogEntries('px_model', [later], { projectors: [model] });
    expect(model.perDay()).toEqual({ '2026-03-11': 2 });
    await projectLogEntries('px_model', [first], { projectors: [model] });
    await projectLogEntries('px_model', [first, later], { projectors: [model] });

    expect(model.perDay()).toEqual({ '2026-03-10': 2, '2026-03-11': 1 });
    expect(model.orders).toEqual(new Map([['o1', 10]]));
  });

  it('are fed by the order import, and rebuilt from the stored events and orders alone', async () => {
    const live = new EventsPerDay();
    await projectLogEntries('px_rebuild', [entry('px_rebuild', 1, [event('x', '2026-03-10T10:00:00Z'), event('y', '2026-03-12T10:00:00Z')])], { projectors: [live] });
    const file = join(mkdtempSync(join(tmpdir(), 'projectors-')), 'orders.ndjson');
    writeFileSync(file, `${JSON.stringify({ orderId: 'imp-1', orderDate: '2026-03-11T00:00:00Z', value: 7, currency: 'EUR' })}\n`);
    await importOrdersFile('px_rebuild', file, { projectors: [live] });
    expect(live.orders).toEqual(new Map([['imp-1', 7]]));

    const rebuilt = new EventsPerDay();
    const summary = await rebuildReadModels('px_rebuild', { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-04-01T00:00:00Z') }, [rebuilt]);
    expect(summary).toEqual({ projectors: ['events-per-day'], entries: 2, events: 2, orders: 1, movedOrders: 0 });
    expect(rebuilt.perDay()).toEqual(live.perDay());
    expect(rebuilt.orders).toEqual(live.orders);

    // Replaying again changes nothing.
    await rebuildReadModels('px_rebuild', { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-04-01T00:00:00Z') }, [rebuilt]);
    expect(rebuilt.perDay()).toEqual(live.perDay());
  });

  it('move the orders an earlier version kept as DynamoDB items into the analytics store, once', async () => {
    // An order item as earlier versions wrote it: its statements in `sources`, listed by order month on GSI1.
    const source = { pos: 'import', at: '2026-03-20T08:00:00.000Z', update: { orderId: 'old-1', asOf: '2026-03-20T08:00:00.000Z', fields: { orderDate: '2026-03-19T10:00:00.000Z', value: 42, currency: 'USD' }, defaults: { financialStatus: 'paid' }, refunds: [], customer: { emailHashes: ['e'], phoneHashes: [], userIds: [] } } };
    const item = { PK: 'PIXEL#px_upgrade#ORDER#old-1', SK: 'ORDER', GSI1PK: 'PIXEL#px_upgrade#ORDERS#2026-03', GSI1SK: '2026-03-19T10:00:00.000Z#old-1', orderId: 'old-1', version: 3, sources: JSON.stringify({ 'import:abc': source }) };
    await documentClient.send(new PutCommand({ TableName: tableName(), Item: item }));
    const seen = new EventsPerDay();
    const range = { from: new Date('2026-03-01T00:00:00Z'), to: new Date('2026-04-01T00:00:00Z') };
    expect(await rebuildReadModels('px_upgrade', range, [seen])).toMatchObject({ orders: 1, movedOrders: 1 });
    expect(await getOrder('px_upgrade', 'old-1')).toMatchObject({ value: 42, currency: 'USD', orderDate: '2026-03-19T10:00:00.000Z', customer: { emailHashes: ['e'] } });
    expect(seen.orders).toEqual(new Map([['old-1', 42]]));
    expect((await wholeTable()).filter((stored) => String(stored.PK).includes('#ORDER#'))).toEqual([]);
    // Run again: nothing left to move, the same order.
    expect(await rebuildReadModels('px_upgrade', range, [seen])).toMatchObject({ orders: 1, movedOrders: 0 });
  });

  it('fail the batch when one throws, leaving it to be projected again', async () => {
    const failing: Projector = { name: 'failing', project: async () => Promise.reject(new Error('read model store down')) };
    await expect(projectLogEntries('px_failing', [entry('px_failing', 1, [event('f', '2026-03-10T10:00:00Z')])], { projectors: [failing] })).rejects.toThrow(
      'read model store down',
    );
  });
});
