import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { readOrders, upsertOrders } from '../../shared/analytics/store/order-store';
import type { OrderSource } from '../../shared/orders/order-sources';
import { orderUpdateFromEvent } from '../../shared/orders/order-updates';
import { documentClient } from '../../shared/store/dynamo-client';
import type { StoredEvent } from '../../shared/tracking/stored-event';
import { useFreshTable } from './fresh-table';

/**
 * The orders table's writes, against whichever store the calling file points the SDK at (the
 * live-file records are DynamoDB items, added on a version): an upsert writes its orders bucket by
 * bucket, each bucket's new versions as one file made live by a conditional write. A crash between
 * two buckets' writes, or another writer changing a bucket between the read and the write, must end
 * as a clean upsert.
 */
export function orderWritesSuite(store: string): void {
  describe(`order writes (${store})`, () => {
    beforeAll(async () => {
      await useFreshTable();
    });

    it('a crash between two buckets\u2019 writes of one upsert, then the same upsert again, ends exactly as one clean upsert', async () => {
      // 250 orders over every bucket, 20 of them with a second statement.
      await upsertOrders('px_batch_clean', sources(250));
      const clean = await ordersOf('px_batch_clean');
      expect(clean).toHaveLength(250);

      // The second bucket's write is refused once the first has landed: the first bucket's
      // orders are stored, the others are not.
      let first: Promise<unknown> | undefined;
      const faults = spyOnLiveFileWrites((nth, send) => {
        if (nth === 1) return (first = send());
        if (nth === 2) return first!.then(() => Promise.reject(Object.assign(new Error('injected crash'), { name: 'InternalServerError' })));
        return send();
      });
      await expect(upsertOrders('px_batch_crash', sources(250))).rejects.toThrow('injected crash');
      faults.mockRestore();
      const partial = await ordersOf('px_batch_crash');
      expect(partial.length).toBeGreaterThan(0);
      expect(partial.length).toBeLessThan(250);

      const again = await upsertOrders('px_batch_crash', sources(250));
      expect(again.created + again.unchanged).toBe(250);
      expect(again.orders).toHaveLength(250);
      expect(await ordersOf('px_batch_crash')).toEqual(clean);
    });

    it('keeps both statements when another writer changes an order between the read and the write', async () => {
      const pixelId = 'px_batch_race';
      await upsertOrders(pixelId, sources(3));
      let raced = false;
      const races = spyOnLiveFileWrites(async (nth, send) => {
        if (nth === 1) {
          raced = true;
          // The other writer's statement lands first: this write's version condition then fails.
          await upsertOrders(pixelId, [statement('o-1', 'other', '2026-03-10T12:00:00.000Z', 99)]);
        }
        return send();
      });
      await upsertOrders(pixelId, [statement('o-1', 'mine', '2026-03-10T11:00:00.000Z', 42)]);
      races.mockRestore();
      expect(raced).toBe(true);
      const [o1] = (await ordersOf(pixelId)).filter((order) => order.orderId === 'o-1');
      // The latest statement (12:00) sets the value; the latest received, the update time.
      expect(o1).toMatchObject({ value: 99, createdAt: '2026-03-10T10:00:00.000Z', updatedAt: '2026-03-10T12:00:00.000Z' });
      // Folded from all four statements: a later one without the racing writer's would say 42.
      const without = await upsertOrders('px_batch_race_check', [...sources(3), statement('o-1', 'mine', '2026-03-10T11:00:00.000Z', 42)]);
      expect(without.orders.find((order) => order.order.orderId === 'o-1')!.order.value).toBe(42);
    });
  });
}

/** Routes every conditional write of an orders bucket's live files through `around`, with its number (1, 2, …). */
function spyOnLiveFileWrites(around: (nth: number, send: () => Promise<unknown>) => Promise<unknown>) {
  let writes = 0;
  const send = documentClient.send.bind(documentClient);
  return vi.spyOn(documentClient, 'send').mockImplementation(((command: { input?: { Key?: { PK?: string } } }) =>
    command instanceof UpdateCommand && String(command.input.Key?.PK).endsWith('#PARQUET#orders')
      ? around(++writes, () => send(command as never))
      : send(command as never)) as never);
}

function statement(orderId: string, eventId: string, at: string, value: number): OrderSource {
  const event: StoredEvent = { eventId, eventIdSource: 'client', name: 'purchase', standard: true, timestamp: at, receivedAt: at, data: { orderId, value, currency: 'EUR' } };
  return { key: `event:${eventId}`, pos: `01KORDER#${eventId}`, at, update: orderUpdateFromEvent(event)! };
}

function sources(count: number): OrderSource[] {
  const first = Array.from({ length: count }, (_, i) => statement(`o-${i}`, `o-${i}`, '2026-03-10T10:00:00.000Z', 10 + i));
  const second = Array.from({ length: Math.min(20, count) }, (_, i) => statement(`o-${i * 7 % count}`, `second-${i}`, '2026-03-10T10:30:00.000Z', 500 + i));
  return [...first, ...second];
}

/** The pixel's orders as read, in orderId order. */
async function ordersOf(pixelId: string) {
  return (await readOrders(pixelId, new Date('2026-01-01T00:00:00Z'), new Date('2027-01-01T00:00:00Z'))).sort((a, b) => (a.orderId < b.orderId ? -1 : 1));
}
