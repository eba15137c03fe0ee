import { RetryableFault } from '../faults';
import { orderUpdateFromEvent } from '../orders/order-updates';
import { storeEvents } from '../store/event-repository';
import { upsertOrders } from '../store/order-repository';
import { applyEvents, applyOrders } from '../store/query-read-models';
import type { OrderUpdate } from '../orders/order';
import { newEventId } from './event-id';
import type { IngestRequest } from './parse-ingest-body';
import { toStoredEvent } from './stored-event';

export type IngestResponse = { success: true; eventsIngested: number } | { success: true; eventId: string };

/**
 * Stores a validated request's events, then lets its purchase events update their orders.
 * All or nothing from the client's point of view: a 200 means every event is stored; any storage
 * failure is a retryable fault (503), and retrying the same request completes it. Events sent
 * with an `eventId` are stored once however often they are retried; events without one get a
 * fresh id on every delivery, so a retry may store them twice.
 */
export async function ingestEvents(pixelId: string, request: IngestRequest, receivedAt: Date): Promise<IngestResponse> {
  const events = request.events.map((input) =>
    toStoredEvent(input, {
      eventId: input.eventId ?? newEventId(receivedAt),
      eventIdSource: input.eventId === undefined ? 'server' : 'client',
      receivedAt,
    }),
  );
  try {
    const stored = await storeEvents(pixelId, events);
    const orderUpdates = stored.map(orderUpdateFromEvent).filter((update): update is OrderUpdate => update !== undefined);
    const orders = await upsertOrders(pixelId, orderUpdates, { now: receivedAt });
    // Read-model projection (query measures): moves to the ingestion consumer's projector list.
    await applyEvents(pixelId, stored);
    await applyOrders(pixelId, orders.orders);
  } catch (error) {
    // The request was valid and every step is safe to repeat, so whatever failed here, a retry is
    // the right answer; the cause is logged by the error responder, never shown.
    throw new RetryableFault('Storing the events failed', { cause: error });
  }
  return request.form === 'single' ? { success: true, eventId: events[0]!.eventId } : { success: true, eventsIngested: events.length };
}
