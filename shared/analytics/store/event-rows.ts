import type { StoredEvent } from '../../tracking/stored-event';
import { EVENTS_TABLE } from './tables';

/** An event delivery as a row of the events table, in its column order. */
export function eventRow(entryId: string, event: StoredEvent): unknown[] {
  const row: Record<(typeof EVENTS_TABLE.columns)[number]['name'], unknown> = {
    event_id: event.eventId,
    entry_id: entryId,
    name: event.name,
    standard: event.standard,
    ts: new Date(event.timestamp),
    received_at: new Date(event.receivedAt),
    user_ids: event.user?.userIds ?? [],
    email_hashes: event.user?.emailHashes ?? [],
    phone_hashes: event.user?.phoneHashes ?? [],
    anonymous_id: event.user?.anonymousId ?? null,
    ip_address: event.ipAddress ?? null,
    page_url: event.page?.url ?? null,
    page_referrer: event.page?.referrer ?? null,
    page_title: event.page?.title ?? null,
    utm_source: event.utm?.utm_source ?? null,
    utm_medium: event.utm?.utm_medium ?? null,
    utm_campaign: event.utm?.utm_campaign ?? null,
    utm_content: event.utm?.utm_content ?? null,
    utm_term: event.utm?.utm_term ?? null,
    fbc: event.click?.fbc ?? null,
    fbp: event.click?.fbp ?? null,
    gclid: event.click?.gclid ?? null,
    ttclid: event.click?.ttclid ?? null,
    data: event.data === undefined ? null : JSON.stringify(event.data),
  };
  return EVENTS_TABLE.columns.map((column) => row[column.name]);
}

/** The UTC date an event's row is partitioned under. */
export const eventDate = (event: Pick<StoredEvent, 'timestamp'>): string => new Date(event.timestamp).toISOString().slice(0, 10);
