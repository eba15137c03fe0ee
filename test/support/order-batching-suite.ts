import { beforeAll, describe, expect, it, vi } from 'vitest';
import { orderUpdateFromEvent } from '../../shared/orders/order-updates';
import { bulkDocumentClient, documentClient } from '../../shared/store/dynamo-client';
import { upsertOrders, type OrderSource } from '../../shared/store/order-repository';
import type { StoredEvent } from '../../shared/tracking/stored-event';
import { wholeTable } from './event-store';
import { useFreshTable } from './fresh-table';

/**
 * The order store's batched writes, against whichever store the calling file points the SDK at:
 * both DynamoDB Local and the local store (dynalite, with the transactions of
 * lib/local/dynalite-transactions.ts) write an upsert's orders in transactions of up to 100. A
 * crash between two writes of one upsert, or another writer changing an order between the read
 * and the write, must end as a clean upsert.
 */
export function orderBatchingSuite(store: string): void {
  describe(`batched order upserts (${store})`, () => {
    beforeAll(async () => {
      await useFreshTable();
    });

    it('a crash between two writes of one upsert, then the same upsert again, ends exactly as one clean upsert', async () => {
      // 250 orders (three transactions' worth), 20 of them with a second statement.
      await upsertOrders('px_batch_clean', sources(250));
      const clean = await ordersOf('px_batch_clean');
      expect(clean).toHaveLength(250);

      // The second write call of the upsert fails once the first has landed: the first one's
      // orders are stored, the second's are not.
      let first: Promise<unknown> | undefined;
      const faults = spyOnWrites((nth, send) => {
        if (nth === 1) return (first = send());
        if (nth === 2) return first!.then(() => Promise.reject(Object.assign(new Error('injected crash'), { name: 'InternalServerError' })));
        return send();
      });
      await expect(upsertOrders('px_batch_crash', sources(250))).rejects.toThrow('injected crash');
      for (const fault of faults) fault.mockRestore();
      const partial = await ordersOf('px_batch_crash');
      expect(partial.length).toBeGreaterThan(0);
      expect(partial.length).toBeLessThan(250);

      const again = await upsertOrders('px_batch_crash', sources(250));
      expect(again.created + again.unchanged).toBe(250);
      expect(again.orders).toHaveLength(250);
      expect(await ordersOf('px_batch_crash')).toEqual(clean);
    });

    it('keeps both statements when another writer changes an order between the read and the batched write', async () => {
      const pixelId = 'px_batch_race';
      await upsertOrders(pixelId, sources(3));
      let raced = false;
      const races = spyOnWrites(async (nth, send) => {
        if (nth === 1) {
          raced = true;
          // The other writer's statement lands first: the batch's version condition then fails.
          await upsertOrders(pixelId, [statement('o-1', 'other', '2026-03-10T12:00:00.000Z', 99)]);
        }
        return send();
      });
      await upsertOrders(pixelId, [statement('o-1', 'mine', '2026-03-10T11:00:00.000Z', 42), statement('o-2', 'mine-2', '2026-03-10T11:00:00.000Z', 43)]);
      for (const race of races) race.mockRestore();
      expect(raced).toBe(true);
      const o1 = (await ordersOf(pixelId)).find((item) => item.orderId === 'o-1')!;
      expect(Object.keys(JSON.parse(o1.sources as string) as object).sort()).toEqual(['event:mine', 'event:o-1', 'event:other', 'event:second-1']);
      // The latest statement (12:00) sets the value.
      expect(o1.value).toBe(99);
    });
  });
}

/** Routes every write call (a transaction or a PutItem) on either client through `around`, with its number (1, 2, …). */
function spyOnWrites(around: (nth: number, send: () => Promise<unknown>) => Promise<unknown>) {
  let writes = 0;
  return [documentClient, bulkDocumentClient].map((client) => {
    const send = client.send.bind(client);
    return vi.spyOn(client, 'send').mockImplementation(((command: { constructor: { name: string } }) =>
      /^(TransactWrite|Put)Command$/.test(command.constructor.name) ? around(++writes, () => send(command as never)) : send(command as never)) as never);
  });
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

/** The pixel's order items as stored, in orderId order, with the pixel's name taken out so two pixels compare. */
async function ordersOf(pixelId: string): Promise<Array<Record<string, unknown>>> {
  const items = (await wholeTable()).filter((item) => String(item.PK).startsWith(`PIXEL#${pixelId}#ORDER#`));
  return JSON.parse(JSON.stringify(items.sort((a, b) => (String(a.orderId) < String(b.orderId) ? -1 : 1))).replaceAll(pixelId, 'PIXEL')) as Array<Record<string, unknown>>;
}
