import { RetryableFault, isWriteOutcomeUnknown } from '../faults';
import { appendLogEntry } from '../store/log-repository';
import { newEventId } from './event-id';
import type { IngestRequest } from './parse-ingest-body';
import { toStoredEvent } from './stored-event';

export type IngestResponse = { success: true; eventsIngested: number } | { success: true; eventId: string };

/**
 * Accepts a validated request: gives every event its id (the client's `eventId`, else a ULID),
 * hashes identities, and appends the batch to the ingestion log with one write. A 200 means that
 * write is durable; events, orders and read models follow from the log (shared/pipeline). A
 * storage failure is a retryable fault (503) when nothing was stored, a 500 when the write may
 * have landed and there was no time left to find out (`appendLogEntry`): a retry then stores the
 * client eventIds once anyway, while events without an `eventId` get a fresh id on every
 * delivery, so a retry may store them twice.
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
    await appendLogEntry({ pixelId, entryId: newEventId(receivedAt), acceptedAt: receivedAt.toISOString(), events });
  } catch (error) {
    // An append that may have landed is not a 503 (which says nothing was stored): the error
    // responder answers 500. Anything else failed before storing: a retry is the right answer;
    // the cause is logged by the error responder, never shown.
    if (isWriteOutcomeUnknown(error)) throw error;
    throw new RetryableFault('Storing the events failed', { cause: error });
  }
  return request.form === 'single' ? { success: true, eventId: events[0]!.eventId } : { success: true, eventsIngested: events.length };
}
