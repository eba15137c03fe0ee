import { orderUpdateFromEvent } from '../orders/order-updates';
import type { ItemKey } from '../store/batch-get';
import { readDedupIndex, writeDedupIndex, type EventMarker } from '../store/dedup-index';
import { dayOf, markSuperseded, pageKey, writeEventPages, type EventPage } from '../store/event-repository';
import { markProjected, type LogEntry } from '../store/log-repository';
import { upsertOrders } from '../analytics/store/order-store';
import type { OrderRetraction, OrderSource } from '../orders/order-sources';
import type { StoredEvent } from '../tracking/stored-event';
import { dedupTtl, epochSeconds, eventTtl } from '../store/retention';
import type { ProjectedEntry, Projector } from './projector';
import { readModelProjectors, runProjectors } from './read-models';

/**
 * Projects log entries of ONE pixel: stores their events, updates their orders, runs the read
 * models, then takes the entries out of the pending index. Every step is idempotent and the steps
 * run in an order where a crash between any two leaves a state the next run completes, so the
 * caller's answer to any failure is to run the same entries again.
 *
 * Which delivery of a client eventId is stored: the first in the log, by position
 * `<entryId>#<index>`, whatever order entries are projected in. The eventId's marker (its entry
 * in the packed dedup index, store/dedup-index.ts) records it; a later delivery stays in its page,
 * listed as superseded. When an earlier delivery is projected after a later one (two requests
 * racing, a redriven failure), it takes over the marker and lists the eventId as superseded in the
 * later delivery's page. A marker holds for `DEDUP_RETENTION_DAYS` after its delivery was accepted:
 * a delivery accepted later than that is a new event.
 *
 * Entries of one pixel are never projected concurrently: deployed, the stream keeps a partition key
 * (the pixel's log) in one shard, in order; locally, the drain works each pending shard (a hash of
 * the pixel) in sequence. Index pages are still written on the version they were read at, so a
 * second consumer (an import's drain) fails its batch instead of losing entries. The markers are
 * written first and are the commit point of a winner; pages and supersede marks follow and are
 * repeated by a re-run, which finds its own position in the marker.
 */
export interface ProjectOptions {
  projectors?: readonly Projector[];
  now?: Date;
}

interface Delivery {
  entry: LogEntry;
  event: StoredEvent;
  pos: string;
  page: ItemKey;
}

export const logPosition = (entryId: string, index: number) => `${entryId}#${String(index).padStart(3, '0')}`;

export async function projectLogEntries(pixelId: string, unsorted: readonly LogEntry[], options: ProjectOptions = {}): Promise<void> {
  if (unsorted.length === 0) return;
  // An entry given twice (a stream record seen again) is one entry.
  const entries = [...new Map(unsorted.map((entry) => [entry.entryId, entry])).values()].sort((a, b) =>
    a.entryId < b.entryId ? -1 : a.entryId > b.entryId ? 1 : 0,
  );

  // The first delivery of an eventId within an entry is the entry's; a repeat inside one request is dropped.
  const deliveries: Delivery[] = [];
  for (const entry of entries) {
    const seen = new Set<string>();
    entry.events.forEach((event, index) => {
      if (seen.has(event.eventId)) return;
      seen.add(event.eventId);
      deliveries.push({ entry, event, pos: logPosition(entry.entryId, index), page: pageKey(pixelId, dayOf(event.timestamp), entry.entryId) });
    });
  }

  const byClientId = new Map<string, Delivery[]>();
  for (const delivery of deliveries) {
    if (delivery.event.eventIdSource !== 'client') continue;
    const list = byClientId.get(delivery.event.eventId);
    if (list) list.push(delivery);
    else byClientId.set(delivery.event.eventId, [delivery]);
  }
  const index = await readDedupIndex(pixelId, [...byClientId.keys()], (day, entryId) => pageKey(pixelId, day, entryId));

  const orderOf = (delivery: Delivery) => orderUpdateFromEvent(delivery.event)?.orderId;
  const losers = new Set<Delivery>();
  const retractions: OrderRetraction[] = [];
  const newMarkers: EventMarker[] = [];
  const outsideMarks: Array<{ page: ItemKey; eventId: string; winnerEntryId: string }> = [];
  for (const [eventId, candidates] of byClientId) {
    // Deliveries are in log order already: entries sorted, events in entry order.
    const best = candidates[0]!;
    // A marker past its retention when this delivery was accepted no longer makes it a duplicate.
    const found = index.markers.get(eventId);
    const marker = found && found.ttl > epochSeconds(new Date(best.entry.acceptedAt)) ? found : undefined;
    if (marker && marker.pos <= best.pos) {
      // The stored delivery is the marker's (or this is a re-run of it): every delivery here lost.
      const batchLosers = candidates.filter((candidate) => candidate.pos !== marker.pos);
      for (const candidate of batchLosers) losers.add(candidate);
      // Repeat the marks a run interrupted after its marker may not have made.
      for (const page of marker.supersedes) outsideMarks.push({ page, eventId, winnerEntryId: entryIdOf(marker.pos) });
      const supersedes = sortedKeys([...marker.supersedes, ...batchLosers.map((candidate) => candidate.page)]);
      const supersededOrders = sortedIds([...marker.supersededOrders, ...batchLosers.map(orderOf)]);
      for (const orderId of marker.supersededOrders) retractions.push({ orderId, key: `event:${eventId}`, beforePos: marker.pos });
      if (!sameKeys(supersedes, marker.supersedes) || supersededOrders.join() !== marker.supersededOrders.join()) newMarkers.push({ ...marker, supersedes, supersededOrders });
      continue;
    }
    for (const candidate of candidates.slice(1)) losers.add(candidate);
    const earlier = marker ? [...marker.supersedes, marker.page] : [];
    for (const page of sortedKeys(earlier)) outsideMarks.push({ page, eventId, winnerEntryId: best.entry.entryId });
    const supersedes = sortedKeys([...earlier, ...candidates.slice(1).map((candidate) => candidate.page)]);
    // A later delivery projected before may have made a statement about an order: it is taken back.
    const supersededOrders = sortedIds([...(marker ? [...marker.supersededOrders, marker.orderId] : []), ...candidates.slice(1).map(orderOf)]);
    for (const orderId of supersededOrders) retractions.push({ orderId, key: `event:${eventId}`, beforePos: best.pos });
    const orderId = orderOf(best);
    newMarkers.push({ eventId, pos: best.pos, page: best.page, supersedes, ...(orderId ? { orderId } : {}), supersededOrders, ttl: dedupTtl(best.entry.acceptedAt) });
  }

  const winners = deliveries.filter((delivery) => !losers.has(delivery));
  const sources = winners.flatMap(({ entry, event, pos }): OrderSource[] => {
    const update = orderUpdateFromEvent(event);
    return update ? [{ key: `event:${event.eventId}`, pos, at: entry.acceptedAt, update }] : [];
  });

  // Markers first: they are what a re-run reads to finish an interrupted run. The rest depends
  // only on them, so it runs side by side.
  await writeDedupIndex(index, newMarkers, epochSeconds(new Date(entries.at(-1)!.acceptedAt)));
  const [{ orders, deleted: deletedOrders }] = await Promise.all([
    upsertOrders(pixelId, sources, retractions),
    writeEventPages(pagesOf(deliveries, losers)),
    markSuperseded(groupMarks(outsideMarks), eventTtl(entries.at(-1)!.acceptedAt)),
  ]);

  // Each entry's deliveries in one pass (deliveries are grouped by entry already, in entry order).
  const byEntry = new Map(entries.map((entry) => [entry, { events: [] as StoredEvent[], lost: [] as StoredEvent[] }]));
  for (const delivery of deliveries) byEntry.get(delivery.entry)![losers.has(delivery) ? 'lost' : 'events'].push(delivery.event);
  const projected: ProjectedEntry[] = entries.map((entry) => ({
    entryId: entry.entryId,
    acceptedAt: entry.acceptedAt,
    ...byEntry.get(entry)!,
    superseded: outsideMarks.filter((mark) => mark.winnerEntryId === entry.entryId).map(({ page, eventId }) => ({ entryId: page.SK, eventId, day: dayOfPage(page) })),
  }));
  await runProjectors({ pixelId, entries: projected, orders, deletedOrders }, options.projectors ?? readModelProjectors);

  await markProjected(entries, options.now);
}

function pagesOf(deliveries: readonly Delivery[], losers: ReadonlySet<Delivery>): EventPage[] {
  const pages = new Map<string, EventPage>();
  for (const delivery of deliveries) {
    const id = `${delivery.page.PK}\u0000${delivery.page.SK}`;
    let page = pages.get(id);
    if (!page) {
      page = { key: delivery.page, entryId: delivery.entry.entryId, acceptedAt: delivery.entry.acceptedAt, events: [], superseded: [], ttl: eventTtl(delivery.entry.acceptedAt) };
      pages.set(id, page);
    }
    page.events.push(delivery.event);
    if (losers.has(delivery)) page.superseded.push(delivery.event.eventId);
    // A page of every event of its entry (one UTC day, no eventId twice in the request) holds
    // what the log item holds: its bytes are stored as read, not encoded again.
    if (page.events.length === delivery.entry.events.length && delivery.entry.data !== undefined) page.data = delivery.entry.data;
  }
  return [...pages.values()];
}

const entryIdOf = (pos: string) => pos.slice(0, pos.lastIndexOf('#'));

function groupMarks(marks: ReadonlyArray<{ page: ItemKey; eventId: string }>): Array<{ page: ItemKey; eventIds: string[] }> {
  const byPage = new Map<string, { page: ItemKey; eventIds: string[] }>();
  for (const { page, eventId } of marks) {
    const id = `${page.PK}\u0000${page.SK}`;
    const group = byPage.get(id) ?? { page, eventIds: [] };
    group.eventIds.push(eventId);
    byPage.set(id, group);
  }
  return [...byPage.values()];
}

/** Each key once, in a fixed order: a marker's content never depends on the order runs found them. */
function sortedKeys(keys: readonly ItemKey[]): ItemKey[] {
  const seen = new Map<string, ItemKey>();
  for (const key of keys) seen.set(`${key.PK}\u0000${key.SK}`, { PK: key.PK, SK: key.SK });
  return [...seen].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, key]) => key);
}

function sortedIds(ids: ReadonlyArray<string | undefined>): string[] {
  return [...new Set(ids.filter((id): id is string => id !== undefined))].sort();
}

function sameKeys(a: readonly ItemKey[], b: readonly ItemKey[]): boolean {
  return a.length === b.length && a.every((key, i) => key.PK === b[i]!.PK && key.SK === b[i]!.SK);
}

/** The UTC day of an event page, from its key `…#EV#<YYYY-MM-DD>#<shard>`. */
function dayOfPage(page: ItemKey): string {
  return String(page.PK).split('#EV#')[1]!.slice(0, 10);
}
