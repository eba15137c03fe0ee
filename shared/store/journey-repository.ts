import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { memoizeBounded } from '../memoize-bounded';
import { IdentityComponents, identityKeys } from '../analytics/identity-components';
import { orderTimeOf, type QueryOrder } from '../analytics/query-data';
import { ATTRIBUTION_WINDOWS } from '../attribution/attribution-engine';
import { classifyTouchpoint, type Touchpoint } from '../attribution/touchpoints';
import { mapWithConcurrency } from '../map-with-concurrency';
import type { Order } from '../orders/order';
import type { StoredEvent } from '../tracking/stored-event';
import { batchGet, type ItemKey } from './batch-get';
import { batchWrite, type WriteRequest } from './batch-write';
import { documentClient, tableName } from './dynamo-client';
import { decodeEvents, logPartition } from './log-repository';
import { queryAll } from './query-all';
import type { VersionedOrder } from '../analytics/store/order-store';
import { isConditionFailure, unlessRefused } from './condition-failure';
import { dayOf, pageKey } from './event-repository';
import { isExpired } from './retention';

/**
 * The read models of POST /db-mgmt/api/query-attribution: the identity graph, each identifier's
 * touchpoints and each order's journey, kept by the `attribution-journeys` projector.
 *
 * One item per identifier, `PIXEL#<p>#AJ#<identifier>` / `JOURNEY`, written by events only, with two maps:
 * - `l` (links): identifiers seen together with this one: `eg:<entryId>#<day>#<digest>` (one
 *   group of identifiers on events of that log entry and UTC day, `groupLinkKey`) → JSON list: in
 *   the item of the group's hub (its anonymous id, else its least identifier), the group's other
 *   identifiers; in the others' items, the hub. Before group links, each delivery had its own,
 *   `ev:<eventId>@<entryId>`: still read, and taken back with its delivery. (An imported order's
 *   link, `or:<orderId>` → `{ v, ids }`, is on the order side, `orderSideKey`; items written
 *   before it keep theirs here, still read;)
 * - `t` (touchpoints): `<eventId>@<entryId>` → JSON `[at, source, utm_source, utm_medium,
 *   utm_campaign, utm_content, utm_term, campaignId, adsetId, adId]`, under the first identifier of
 *   the event only (its `a:` anonymous id when it has one).
 * An item put whole (a new identifier's, or a known one's with room left, `applyJourneyEvents`)
 * holds both maps packed in one string attribute, `j` (JSON `{"l": {...}, "t": {...}}`): the SDK
 * and the store handle one attribute instead of one per entry, and most items are written so.
 * Items written by updates (pages, an item past its bound, earlier layouts) keep the maps; a
 * read takes the union of both forms (`unpackJourney`), and a put whole packs them again.
 * No pointer is kept for a delivery: one that later loses to an earlier one (P6's `superseded`,
 * which names its entry and day) is taken back from what its event, kept in its page, wrote
 * (`retractDeliveries`). Pointer items of earlier layouts (`PIXEL#<p>#AJD#<entryId>#<YYYY-MM-DD>` /
 * `ENTRY`, `PIXEL#<p>#AJD#<eventId>#<entryId>` / `POINTER`) are no longer read.
 *
 * An identifier's entries past `ITEM_ENTRY_BYTES` go to its pages, `JOURNEY#1`, `JOURNEY#2`…
 * (`np` on the item counts them, `sz` on each counts the bytes written to it): the identifier's
 * maps are the union of its item's and its pages'.
 *
 * An order's date `d` ({ v, at }, the order store's version and order date, never replaced by an
 * older version) and `fd`, the day items its journey is filed under, are on its `o:` order side,
 * or on its `o:` item when a purchase created that item (a read takes the newer date and both
 * filings, `mergeSides`).
 *
 * Each order's journey, filed by its UTC order day in the pixel's own journey partition:
 * `PIXEL#<p>#AJ#` / `DAY#<YYYY-MM-DD>#<00-15>` (the order id's hash picks one of 16 items), map
 * `jo`: `<orderId>` → { g, a, j }: the generation that wrote it, the order time, and JSON rows
 * `[id, at, source, utm…, campaignId, adsetId, adId]` of its person's touchpoints in
 * (order time − 90 days, order time], oldest first, at most `MAX_JOURNEY_BYTES` of them (the
 * latest). A journey larger than `INLINE_JOURNEY_BYTES`, or one whose shard is full, is filed in an
 * item of its own beside the shard, `DAY#<YYYY-MM-DD>#<00-15>#<orderId>`, with the same map `jo`
 * (a query's read of the day's keys finds it). `PIXEL#<p>#AJ#` / `GENERATION` counts person
 * resolutions (`resolvePersons`).
 *
 * Identifiers: `a:` anonymous id, `u:` user id, `e:` email hash, `p:` phone hash, `f:` click.fbp,
 * `o:` order id (a purchase event carrying `data.orderId`, and the order itself).
 *
 * Why this layout: the projector, which sees every change, walks the graph (one item per
 * identifier, one batched read per round, over the persons a batch touched only) and files again
 * each order whose journey the batch can change, with the touchpoints a window may credit. A query then reads only the
 * day items of its orders' days: its cost follows the orders of its range, never a person's or the
 * pixel's history, and never a walk. Entries are keyed by delivery or order, written with a plain
 * SET (a duplicate rewrites the same value), so the state depends only on which deliveries won.
 */
const JOURNEY_SK = 'JOURNEY';
const GENERATION_SK = 'GENERATION';
/** An identifier's order side (`orderSideKey`): what orders say about it, kept apart from what its events say. */
const ORDER_SK = 'ORDER';
/** Order journeys of one UTC day are spread over this many items, so a busy day stays far below DynamoDB's 400 KB. */
const DAY_SHARDS = 16;
/** A journey kept with its order reaches back as far as the longest window a query may ask for. */
const KEPT_MS = Math.max(...ATTRIBUTION_WINDOWS) * 86_400_000;
/**
 * An order's journey keeps at most this much of its touchpoints (the latest), so its item stays
 * below DynamoDB's 400 KB; above `INLINE_JOURNEY_BYTES` it gets an item of its own, so a day
 * shard holds only small journeys (and one that is full anyway sends the next to their own).
 */
export const MAX_JOURNEY_BYTES = 200_000;
const INLINE_JOURNEY_BYTES = 4_000;
const WRITE_CONCURRENCY = 8;
const READ_CONCURRENCY = 8;
const ENTRIES_PER_UPDATE = 40;

export const journeyKey = (pixelId: string, identifier: string): ItemKey => ({ PK: `PIXEL#${pixelId}#AJ#${identifier}`, SK: JOURNEY_SK });

type JourneyMaps = { l: Record<string, unknown>; t: Record<string, string> };

/**
 * A journey item (or page) as read, with its maps whole: its packed `j` and its `l` and `t` maps
 * merged (an item holds one form or the other; both are read, so no layout needs a rebuild).
 */
export function unpackJourney(item: Record<string, unknown>): Record<string, unknown> {
  if (typeof item.j !== 'string') return item;
  const { j, ...rest } = item;
  const packed = JSON.parse(j) as Partial<JourneyMaps>;
  return { ...rest, l: { ...packed.l, ...(item.l as object | undefined) }, t: { ...packed.t, ...(item.t as object | undefined) } };
}

/** A journey item as put whole: its maps packed in `j` (see the layout above). */
function packJourney(item: Record<string, unknown>): Record<string, unknown> & { j: string } {
  const { l = {}, t = {}, ...rest } = item;
  return { ...rest, j: JSON.stringify({ l, t }) };
}
/**
 * An identifier's order side, `ORDER` beside its `JOURNEY` item: an imported order's links
 * (`or:<orderId>` → { v, ids }, top-level attributes) and, on an `o:` identifier, its order's
 * date `d` and filings `fd`. Orders (the import, the order store's versions) write only here and
 * events only the `JOURNEY` item and its pages, so the drain can create a new identifier's
 * `JOURNEY` item with a blind batched put: nothing else writes it. Before this split the order
 * side was kept on the `JOURNEY` item itself: still read there (`mergeSides`), and taken back
 * there (a date, a filing) when the order changes.
 */
export const orderSideKey = (pixelId: string, identifier: string): ItemKey => ({ PK: `PIXEL#${pixelId}#AJ#${identifier}`, SK: ORDER_SK });
/** Browser identifiers are on events only (an order's customer has user ids, email and phone hashes): they never have an order side. */
const hasOrderSide = (identifier: string) => !identifier.startsWith('a:') && !identifier.startsWith('f:');
/**
 * The pixel's own journey partition (no identifier is empty, so it is no identifier's): the
 * counter of person resolutions and the order journeys by order day.
 */
const pixelJourneysPk = (pixelId: string) => `PIXEL#${pixelId}#AJ#`;
const generationKey = (pixelId: string): ItemKey => ({ PK: pixelJourneysPk(pixelId), SK: GENERATION_SK });
const utcDay = (at: number) => new Date(at).toISOString().slice(0, 10);
function shardOf(orderId: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < orderId.length; i++) hash = Math.imul(hash ^ orderId.charCodeAt(i), 0x01000193);
  return String((hash >>> 0) % DAY_SHARDS).padStart(2, '0');
}
export const orderJourneyKey = (pixelId: string, orderId: string, at: number): ItemKey => ({ PK: pixelJourneysPk(pixelId), SK: `DAY#${utcDay(at)}#${shardOf(orderId)}` });
/**
 * An order's own journey item, beside its day's shard (its key sorts within the day's, so a
 * query's read of the day finds it): for a journey too large to share an item.
 */
const ownJourneyKey = (pixelId: string, orderId: string, at: number): ItemKey => ({ PK: pixelJourneysPk(pixelId), SK: `DAY#${utcDay(at)}#${shardOf(orderId)}#${orderId}` });
/** Where a journey is filed first: its day's shard, or its own item when larger than `INLINE_JOURNEY_BYTES`. */
const journeyItemKey = (pixelId: string, orderId: string, at: number, rows: string): ItemKey =>
  Buffer.byteLength(rows) > INLINE_JOURNEY_BYTES ? ownJourneyKey(pixelId, orderId, at) : orderJourneyKey(pixelId, orderId, at);
/** Every identifier of an event, in a fixed order: the anonymous id first, the order id last. */
export function eventIdentifiers(event: Pick<StoredEvent, 'user' | 'click' | 'data'>): string[] {
  const ids = [
    ...(event.user?.anonymousId ? [`a:${event.user.anonymousId}`] : []),
    ...identityKeys({ ...event.user, fbp: event.click?.fbp ? [event.click.fbp] : [] }),
  ];
  const orderId = event.data?.orderId;
  if (typeof orderId === 'string' && orderId.length > 0) ids.push(`o:${orderId}`);
  return [...new Set(ids)];
}

/** The identifiers an order starts its person from: its own id and its customer's identifiers. */
export function orderIdentifiers(order: { orderId: string; customer: Order['customer'] }): string[] {
  return [`o:${order.orderId}`, ...identityKeys(order.customer)];
}

const deliveryId = (eventId: string, entryId: string) => `${eventId}@${entryId}`;

export type TouchpointEntry = [number, string, ...Array<string | null>];

function touchpointEntry(event: StoredEvent): TouchpointEntry | undefined {
  const signal = classifyTouchpoint(event);
  if (!signal) return undefined;
  const { utm } = signal;
  return [
    Date.parse(event.timestamp),
    signal.source,
    utm.utm_source ?? null,
    utm.utm_medium ?? null,
    utm.utm_campaign ?? null,
    utm.utm_content ?? null,
    utm.utm_term ?? null,
    signal.campaignId,
    signal.adsetId,
    signal.adId,
  ];
}

export function touchpointOf(id: string, entry: TouchpointEntry): Touchpoint {
  const [at, source, utmSource, utmMedium, utmCampaign, utmContent, utmTerm, campaignId, adsetId, adId] = entry as [number, string, ...Array<string | null>];
  const utm: Touchpoint['utm'] = {};
  if (utmSource) utm.utm_source = utmSource;
  if (utmMedium) utm.utm_medium = utmMedium;
  if (utmCampaign) utm.utm_campaign = utmCampaign;
  if (utmContent) utm.utm_content = utmContent;
  if (utmTerm) utm.utm_term = utmTerm;
  return { id, at, source, utm, campaignId: campaignId ?? null, adsetId: adsetId ?? null, adId: adId ?? null };
}

export interface EntryWrite {
  identifier: string;
  map: 'l' | 't';
  key: string;
  value: string;
}

/**
 * The link key of a group of identifiers seen together in one log entry's events of one UTC day:
 * `eg:<entryId>#<day>#<digest of the sorted group>`. Every delivery of that entry and day with
 * that group writes the same key, so a visit's events (a browser's anonymous id and fbp, a
 * signed-in customer's email and user id, on every page view) make one link per item, not one per
 * event: links were most of what a batch wrote, and most of what every walk read back and parsed.
 */
export function groupLinkKey(entryId: string, day: string, group: readonly string[]): string {
  return `eg:${entryId}#${day}#${groupDigest([...group].sort().join('\n'))}`;
}

// A visit's events carry the same group one after another, so the digest is asked again at once.
const groupDigest = memoizeBounded((sorted: string) => createHash('sha256').update(sorted).digest('base64url').slice(0, 16));

/**
 * The item that holds a group's whole list: its anonymous id (an event has at most one), else its
 * least identifier. A function of the group alone, so every delivery of a group writes the same
 * value under its key in every item.
 */
const hubOf = (group: readonly string[]) => group.find((identifier) => identifier.startsWith('a:')) ?? [...group].sort()[0]!;

/** What one stored delivery writes: its group's links in each identifier's item, its touchpoint under the first. */
export function writesOf(entryId: string, event: StoredEvent): EntryWrite[] {
  const ids = eventIdentifiers(event);
  if (ids.length === 0) return [];
  const delivery = deliveryId(event.eventId, entryId);
  const writes: EntryWrite[] = [];
  // A lone identifier links nothing; only events that tie two together are kept as links. The
  // hub's item holds the whole list; each other one's names the hub only (a star: the walk
  // reaches the whole list in one more round, and the items stay small).
  if (ids.length >= 2) {
    const hub = hubOf(ids);
    const others = ids.filter((identifier) => identifier !== hub);
    const key = groupLinkKey(entryId, dayOf(event.timestamp), ids);
    writes.push({ identifier: hub, map: 'l', key, value: JSON.stringify(others) });
    for (const identifier of others) writes.push({ identifier, map: 'l', key, value: JSON.stringify([hub]) });
  }
  const touchpoint = touchpointEntry(event);
  if (touchpoint) writes.push({ identifier: ids[0]!, map: 't', key: delivery, value: JSON.stringify(touchpoint) });
  return writes;
}


/** Creates an empty journey item unless it exists; true when this call created it. */
async function ensureJourneyItem(key: ItemKey): Promise<boolean> {
  return unlessRefused(() => documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...key, l: {}, t: {} }, ConditionExpression: 'attribute_not_exists(PK)' })));
}

/**
 * An identifier's item takes deliveries' entries (links, touchpoints) up to about this many bytes
 * (`sz` counts what was written to it, retries included, so it only overestimates); the rest go to
 * its pages, `JOURNEY#1`, `JOURNEY#2`… (`np` on the item: how many), each filled to the same
 * bound. What is left of 400 KB keeps room for an order's date and filings, and for the links of
 * imported orders, which stay on the item itself.
 */
export const ITEM_ENTRY_BYTES = 300_000;
const MAX_PAGE_ATTEMPTS = 32;
export const journeyPageKey = (pixelId: string, identifier: string, page: number): ItemKey => ({ PK: `PIXEL#${pixelId}#AJ#${identifier}`, SK: `${JOURNEY_SK}#${page}` });
/** How many pages an identifier's item has opened past itself (`np`). */
const pageCount = (item: Record<string, unknown> | undefined) => (typeof item?.np === 'number' ? item.np : 0);
/** The keys of those pages, `JOURNEY#1` to `JOURNEY#<np>`. */
const pageKeys = (pixelId: string, identifier: string, item: Record<string, unknown>) => Array.from({ length: pageCount(item) }, (_, i) => journeyPageKey(pixelId, identifier, i + 1));

/**
 * Sets deliveries' entries on an identifier's item, or on its last page once the item is full:
 * a shared identifier (one browser id on a kiosk, a test account) collects entries without end,
 * and no item may pass 400 KB. A retry may set an entry on a later page than its first attempt
 * did; the identifier's maps are the union of its item's and pages', so that reads the same.
 */
async function setEntries(pixelId: string, identifier: string, writes: readonly EntryWrite[], lastPage: number): Promise<void> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':cap': ITEM_ENTRY_BYTES, ':sz': entryBytes(writes) };
  const sets = writes.map((write, i) => {
    names[`#k${i}`] = write.key;
    values[`:v${i}`] = write.value;
    return `${write.map}.#k${i} = :v${i}`;
  });
  const base = journeyKey(pixelId, identifier);
  let page = lastPage;
  for (let attempt = 0; attempt < MAX_PAGE_ATTEMPTS; attempt++) {
    const key = page === 0 ? base : journeyPageKey(pixelId, identifier, page);
    const written = await unlessRefused(() =>
      documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: `SET ${sets.join(', ')} ADD sz :sz`,
          ConditionExpression: `attribute_exists(l) AND (attribute_not_exists(sz) OR sz < :cap)${page === 0 ? ' AND attribute_not_exists(np)' : ''}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      ),
    );
    if (written) return;
    // Refused: the item (or page) is missing, full, or no longer the last one.
    const { Item: item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: base, ConsistentRead: true, ProjectionExpression: 'PK, np' }));
    if (!item) {
      await ensureJourneyItem(base);
      continue;
    }
    const pages = pageCount(item);
    if (page !== pages) {
      page = pages;
      continue;
    }
    // A page whose opener failed before creating it is created; otherwise the last page (or the
    // item, with no page yet) is full, and the next one is opened.
    if (page > 0 && (await ensureJourneyItem(journeyPageKey(pixelId, identifier, page)))) continue;
    await unlessRefused(() => nextPage(base, pages));
    page = pages + 1;
    await ensureJourneyItem(journeyPageKey(pixelId, identifier, page));
  }
  throw new Error(`could not place ${writes.length} journey entries of ${identifier}: its pages kept changing`);
}

/** Moves an identifier's writes on from its last page `from` (0: the item itself) to a new one, unless another writer did. */
function nextPage(base: ItemKey, from: number) {
  return documentClient.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: base,
      UpdateExpression: 'SET np = :next',
      ConditionExpression: from === 0 ? 'attribute_not_exists(np)' : 'np = :from',
      ExpressionAttributeValues: { ':next': from + 1, ...(from === 0 ? {} : { ':from': from }) },
    }),
  );
}

/**
 * Each identifier's journey as one item: its `JOURNEY` item (with its pages), or the one the
 * caller knows (`known`, as written), and its order side (`mergeSides`), one batched read for all.
 * An identifier with neither has no item.
 */
async function readIdentifiers(pixelId: string, identifiers: readonly string[], known?: ReadonlyMap<string, Record<string, unknown>>): Promise<Array<Record<string, unknown>>> {
  const keys = identifiers.flatMap((identifier) => [
    ...(known?.has(identifier) ? [] : [journeyKey(pixelId, identifier)]),
    ...(hasOrderSide(identifier) ? [orderSideKey(pixelId, identifier)] : []),
  ]);
  const read = keys.length === 0 ? [] : await batchGet(keys, { concurrency: READ_CONCURRENCY });
  const journeys = new Map<string, Record<string, unknown>>();
  const orderSides = new Map<string, Record<string, unknown>>();
  for (const item of read) (item.SK === ORDER_SK ? orderSides : journeys).set(item.PK as string, item.SK === ORDER_SK ? item : unpackJourney(item));
  for (const item of await withPages(pixelId, [...journeys.values()])) journeys.set(item.PK as string, item);
  return identifiers.flatMap((identifier) => {
    const { PK } = journeyKey(pixelId, identifier);
    const journey = known?.get(identifier) ?? journeys.get(PK);
    const orderSide = orderSides.get(PK);
    return journey || orderSide ? [mergeSides(PK, journey, orderSide)] : [];
  });
}

/**
 * Where a merged `o:` item keeps the filings recorded on its `JOURNEY` item (a purchase's new
 * item, or one written before the order side), so a move takes them out there too.
 */
const LEGACY_FD = '\u0000fd';

/**
 * An identifier's `JOURNEY` item with its order side's facts added: the imported orders' links
 * in `l` (of two versions of one order's link, the newer), the order date of the newer version
 * (`d`), the filings of both (`fd`). Items written before the order side keep these on the
 * `JOURNEY` item itself, and a purchase's new `o:` item is written with its date: both are read,
 * so no rebuild is needed.
 */
function mergeSides(PK: string, journey: Record<string, unknown> | undefined, orderSide: Record<string, unknown> | undefined): Record<string, unknown> {
  const item: Record<string, unknown> = journey ?? { PK, SK: JOURNEY_SK, l: {}, t: {} };
  if (!orderSide) {
    if (item.fd instanceof Set) return { ...item, [LEGACY_FD]: item.fd };
    return item;
  }
  const l = { ...((item.l ?? {}) as Record<string, unknown>) };
  for (const [name, value] of Object.entries(orderSide)) {
    if (!name.startsWith('or:')) continue;
    const held = l[name] as { v: number } | undefined;
    if (!held || held.v <= (value as { v: number }).v) l[name] = value;
  }
  const dates = [item.d, orderSide.d].filter((date): date is OrderDate => date !== undefined);
  const d = dates.length === 0 ? undefined : dates.reduce((newer, date) => (date.v > newer.v ? date : newer));
  const fd = new Set([...((item.fd as Set<string> | undefined) ?? []), ...((orderSide.fd as Set<string> | undefined) ?? [])]);
  // The newer date's filing is where the journey is; the other's, if any, is taken out as after a move.
  return { ...item, l, ...(d ? { d } : {}), ...(fd.size > 0 ? { fd } : {}), [LEGACY_FD]: (item.fd as Set<string> | undefined) ?? new Set() };
}

/** Journey items as read, each with its pages' entries merged into its maps (`np` pages). */
async function withPages(pixelId: string, items: Array<Record<string, unknown>>): Promise<Array<Record<string, unknown>>> {
  const keys = items.flatMap((item) => pageKeys(pixelId, identifierOf(pixelId, item), item));
  if (keys.length === 0) return items;
  const pages = new Map<string, Array<Record<string, unknown>>>();
  for (const page of await batchGet(keys, { concurrency: READ_CONCURRENCY })) {
    const list = pages.get(page.PK as string) ?? [];
    list.push(unpackJourney(page));
    pages.set(page.PK as string, list);
  }
  return items.map((item) => {
    const more = pages.get(item.PK as string);
    if (!more) return item;
    const l = { ...((item.l ?? {}) as object) };
    const t = { ...((item.t ?? {}) as object) };
    for (const page of more) {
      Object.assign(l, page.l ?? {});
      Object.assign(t, page.t ?? {});
    }
    return { ...item, l, t };
  });
}

/** A stored delivery as the journeys projector sees it: the event, its log entry, and when that entry was accepted. */
export interface JourneyDelivery {
  entryId: string;
  /** When the entry was accepted; the event's `receivedAt` when not given. */
  acceptedAt?: string;
  event: StoredEvent;
}

/** What `applyJourneyEvents` wrote: the identifiers it touched, and the items it put whole (their content is known). */
export interface AppliedEvents {
  touched: Set<string>;
  /** `JOURNEY` items put whole, as written: nothing else writes them (see `applyJourneyEvents`), so a resolution need not read them back. */
  written: Map<string, Record<string, unknown>>;
  /** Orders whose new `o:` item this step wrote with their date (`applyOrderDates` need not write it again). */
  dated: Set<string>;
}

/**
 * Projector step for stored events (P6's winners of a batch), keyed by the delivery's entry. Their
 * pages are stored before any projector runs, so what a delivery wrote can always be taken back
 * (`retractDeliveries`).
 */
export async function applyJourneyEvents(pixelId: string, deliveries: readonly JourneyDelivery[], orders: readonly VersionedOrder[] = []): Promise<AppliedEvents> {
  // Each identifier's entries by map and key: the deliveries of one group in one entry and day
  // share their link (`groupLinkKey`), which is written once.
  const entriesOf = new Map<string, Map<string, EntryWrite>>();
  for (const { entryId, event } of deliveries) {
    for (const write of writesOf(entryId, event)) {
      const list = entriesOf.get(write.identifier);
      if (list) list.set(`${write.map}${write.key}`, write);
      else entriesOf.set(write.identifier, new Map([[`${write.map}${write.key}`, write]]));
    }
  }
  const byIdentifier = new Map([...entriesOf].map(([identifier, writes]) => [identifier, [...writes.values()]]));
  const written = new Map<string, Record<string, unknown>>();
  const dated = new Set<string>();
  if (byIdentifier.size === 0) return { touched: new Set(), written, dated };
  // One batched read of every identifier's item tells new from known and gives the known ones'
  // content: the resolution that follows walks these same identifiers first, and takes them from
  // here instead of reading them again.
  const existing = new Map<string, Record<string, unknown>>();
  for (const item of await batchGet([...byIdentifier.keys()].map((identifier) => journeyKey(pixelId, identifier)), { concurrency: READ_CONCURRENCY })) {
    existing.set(identifierOf(pixelId, item), unpackJourney(item));
  }
  const updates: Array<{ identifier: string; writes: EntryWrite[] }> = [];
  const puts: WriteRequest[] = [];
  const latest = latestVersions(orders);
  for (const [identifier, writes] of byIdentifier) {
    // An identifier's `JOURNEY` item is written by this step alone (orders write its order side,
    // `orderSideKey`), and one pixel's entries are projected one at a time: nothing else can
    // create or change one between the read above and this write. So a new item, and a known one
    // with room left, is put whole with the batch's entries added, 25 items a call (a conditional
    // update each was most of the pipeline's store calls), and the resolution takes it as written.
    // (A rebuild beside the drain replays stored deliveries, which write the same entries again.)
    const item = existing.get(identifier);
    const bytes = entryBytes(writes);
    // A purchase's new `o:` item takes its order's date (and the day item its journey is about
    // to be filed under) as `applyOrderDates` would write them on the order side: one write
    // fewer a new order. A read takes the newer of the two dates (`mergeSides`).
    const order = !item && identifier.startsWith('o:') ? latest.get(identifier.slice(2)) : undefined;
    // A new item, or a known one without pages: put whole, unless its packed maps would not fit
    // (the bound holds for the packed text itself, which escaping can make longer than `sz`).
    let whole: Record<string, unknown> | undefined;
    if (!item) {
      whole = { ...newJourneyItem(pixelId, identifier, writes), ...(order ? datedAttributes(pixelId, order) : {}) };
    } else if (item.np === undefined && (typeof item.sz === 'number' ? item.sz : 0) + bytes < ITEM_ENTRY_BYTES) {
      whole = withEntries(item, writes, bytes);
    }
    const packed = whole && packJourney(whole);
    if (whole && packed && Buffer.byteLength(packed.j) < ITEM_ENTRY_BYTES) {
      if (order) dated.add(order.order.orderId);
      puts.push({ PutRequest: { Item: packed } });
      written.set(identifier, whole);
    } else {
      // Full or paged: the entries go to its last page by conditional updates, which open a new
      // page when one fills (a packed item, which has no maps, takes no update: it is full).
      for (let i = 0; i < writes.length; i += ENTRIES_PER_UPDATE) updates.push({ identifier, writes: writes.slice(i, i + ENTRIES_PER_UPDATE) });
    }
  }
  await Promise.all([
    batchWrite(puts, { concurrency: WRITE_CONCURRENCY }),
    mapWithConcurrency(updates, WRITE_CONCURRENCY, ({ identifier, writes }) => setEntries(pixelId, identifier, writes, pageCount(existing.get(identifier)))),
  ]);
  return { touched: new Set(byIdentifier.keys()), written, dated };
}

/** Each order's latest version among these. */
function latestVersions(orders: readonly VersionedOrder[]): Map<string, VersionedOrder> {
  const latest = new Map<string, VersionedOrder>();
  for (const entry of orders) {
    const known = latest.get(entry.order.orderId);
    if (!known || known.version <= entry.version) latest.set(entry.order.orderId, entry);
  }
  return latest;
}

/**
 * An order's date on its `o:` order side, and the day item its journey is filed under unless it is
 * large (`journeyItemKey`), recorded with it: `fileUnder` records a key first anyway, and a key
 * recorded here that the filing does not use is taken out by the same resolution, as after a move.
 */
function datedAttributes(pixelId: string, { order, version }: VersionedOrder): { d: OrderDate; fd: Set<string> } {
  return { d: { v: version, at: order.orderDate }, fd: new Set([orderJourneyKey(pixelId, order.orderId, Date.parse(order.orderDate)).SK]) };
}

/** A new identifier's item holding its first entries. */
function newJourneyItem(pixelId: string, identifier: string, writes: readonly EntryWrite[]): Record<string, unknown> {
  const maps: Record<'l' | 't', Record<string, string>> = { l: {}, t: {} };
  for (const write of writes) maps[write.map][write.key] = write.value;
  return { ...journeyKey(pixelId, identifier), ...maps, sz: entryBytes(writes) };
}

/** A known identifier's item with entries added, as `setEntries` would leave it. */
function withEntries(item: Record<string, unknown>, writes: readonly EntryWrite[], bytes: number): Record<string, unknown> {
  const maps = { l: { ...((item.l ?? {}) as Record<string, string>) }, t: { ...((item.t ?? {}) as Record<string, string>) } };
  for (const write of writes) maps[write.map][write.key] = write.value;
  return { ...item, ...maps, sz: (typeof item.sz === 'number' ? item.sz : 0) + bytes };
}

/** Bytes `sz` counts for entries: their keys and values, and a little for each entry's overhead. */
const entryBytes = (writes: readonly EntryWrite[]) => writes.reduce((sum, write) => sum + Buffer.byteLength(write.key) + Buffer.byteLength(write.value) + 8, 0);

/** A delivery taken back: its entry, day and eventId, and the identifiers it wrote (their persons are resolved again). */
export interface TakenBack {
  entryId: string;
  eventId: string;
  day: string;
  ids: string[];
}

/**
 * Takes back what deliveries that lost to an earlier delivery of their eventId wrote. What a
 * delivery wrote is a function of its event (`writesOf`), and the event stays in its page, listed
 * as superseded (P6 marks it before any projector runs, and the page is written before its entry's
 * projectors ever ran): so the pages, read one batched call for all, say which identifiers to
 * visit, and no pointer needs to be kept for it. Its touchpoint (and a pre-group-link delivery's
 * own link, `ev:`) is removed; its group link (`groupLinkKey`), shared with the other deliveries
 * of its group in its entry and day, only when none of them stands: no other delivery of the page
 * with the same identifiers that is neither superseded nor taken back by this call. A retry, or a
 * later run that lists the same delivery again, decides the same and removes what is gone already.
 * Returns the deliveries taken back, with their identifiers.
 */
export async function retractDeliveries(pixelId: string, deliveries: ReadonlyArray<{ entryId: string; eventId: string; day: string }>): Promise<TakenBack[]> {
  if (deliveries.length === 0) return [];
  const pageId = (entryId: string, day: string) => `${entryId}\u0000${day}`;
  const keys = new Map(deliveries.map(({ entryId, day }) => [pageId(entryId, day), pageKey(pixelId, day, entryId)]));
  const now = new Date();
  const pages = new Map<string, { events: StoredEvent[]; superseded: ReadonlySet<string> }>();
  for (const item of await batchGet([...keys.values()], { concurrency: READ_CONCURRENCY })) {
    // A stub (its entry never projected, so none of its deliveries wrote anything) has no data.
    if (item.data === undefined || isExpired(item, now)) continue;
    const day = String(item.PK).split('#EV#')[1]!.slice(0, 10);
    pages.set(pageId(item.SK as string, day), { events: decodeEvents(item.data as Uint8Array), superseded: (item.superseded as Set<string> | undefined) ?? new Set() });
  }
  const leaving = new Set(deliveries.map(({ entryId, eventId, day }) => `${pageId(entryId, day)}\u0000${eventId}`));
  // What each delivery wrote, and so what to take out of each identifier's item and pages.
  const removals = new Map<string, { l: Set<string>; t: Set<string> }>();
  const taken: TakenBack[] = [];
  for (const { entryId, eventId, day } of deliveries) {
    const page = pages.get(pageId(entryId, day));
    // The first delivery of an eventId within an entry is the entry's (project-log-entries.ts).
    const event = page?.events.find((candidate) => candidate.eventId === eventId);
    if (!page || !event) continue;
    const ids = [...new Set(writesOf(entryId, event).map((write) => write.identifier))].sort();
    if (ids.length === 0) continue;
    const delivery = deliveryId(eventId, entryId);
    const link = ids.length >= 2 ? groupLinkKey(entryId, day, ids) : undefined;
    const group = ids.join('\n');
    const stands = (other: StoredEvent) =>
      other.eventId !== eventId && !page.superseded.has(other.eventId) && !leaving.has(`${pageId(entryId, day)}\u0000${other.eventId}`) && [...eventIdentifiers(other)].sort().join('\n') === group;
    const removeGroup = link !== undefined && !page.events.some(stands);
    for (const identifier of ids) {
      const removal = removals.get(identifier) ?? { l: new Set<string>(), t: new Set<string>() };
      removal.l.add(`ev:${delivery}`);
      if (removeGroup) removal.l.add(link!);
      removal.t.add(delivery);
      removals.set(identifier, removal);
    }
    taken.push({ entryId, eventId, day, ids });
  }
  // One identifier at a time each (a packed item is read, changed and put whole), identifiers side by side.
  await mapWithConcurrency([...removals], WRITE_CONCURRENCY, ([identifier, removal]) => removeEntries(pixelId, identifier, removal));
  return taken;
}

/**
 * Takes entries out of an identifier's item and pages, wherever they are: a packed item is put
 * whole without them (its projector is the only writer of it, as in `applyJourneyEvents`), maps
 * lose them by conditional updates (refused where the item has no maps: nothing to take out).
 * Entries already gone are no change, so a retry does the same.
 */
async function removeEntries(pixelId: string, identifier: string, removal: { l: ReadonlySet<string>; t: ReadonlySet<string> }): Promise<void> {
  const base = journeyKey(pixelId, identifier);
  const { Item: item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: base, ConsistentRead: true }));
  if (!item) return;
  if (typeof item.j === 'string') {
    const whole = unpackJourney(item) as Record<string, unknown> & JourneyMaps;
    const l = Object.fromEntries(Object.entries(whole.l).filter(([key]) => !removal.l.has(key)));
    const t = Object.fromEntries(Object.entries(whole.t).filter(([key]) => !removal.t.has(key)));
    if (Object.keys(l).length !== Object.keys(whole.l).length || Object.keys(t).length !== Object.keys(whole.t).length) {
      await documentClient.send(new PutCommand({ TableName: tableName(), Item: packJourney({ ...whole, l, t }) }));
    }
  }
  const names = [...[...removal.l].map((key) => ['l', key] as const), ...[...removal.t].map((key) => ['t', key] as const)];
  for (const key of [...(item.l !== undefined ? [base] : []), ...pageKeys(pixelId, identifier, item)]) {
    for (let start = 0; start < names.length; start += ENTRIES_PER_UPDATE) {
      const chunk = names.slice(start, start + ENTRIES_PER_UPDATE);
      await unlessRefused(() =>
        documentClient.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: key,
            UpdateExpression: `REMOVE ${chunk.map(([map], i) => `${map}.#k${i}`).join(', ')}`,
            ConditionExpression: 'attribute_exists(l)',
            ExpressionAttributeNames: Object.fromEntries(chunk.map(([, name], i) => [`#k${i}`, name])),
          }),
        ),
      );
    }
  }
}

/**
 * Projector step for orders: links an order's id to its customer's identifiers on each of their
 * order sides (`orderSideKey`), unless one holds a newer version of the order's link. An order's
 * identifiers only grow (merge-order.ts), so a newer version's links cover an older one's.
 */
export async function applyJourneyOrders(pixelId: string, orders: readonly VersionedOrder[]): Promise<Set<string>> {
  const latest = latestVersions(orders);
  const writes = [...latest.values()].flatMap(({ order, version }) => {
    const ids = orderIdentifiers(order);
    // An order without a customer links nothing: its own id is where its purchase events meet it.
    if (ids.length < 2) return [];
    return ids.map((identifier) => ({ identifier, orderId: order.orderId, value: { v: version, ids: JSON.stringify(ids) } }));
  });
  await mapWithConcurrency(writes, WRITE_CONCURRENCY, ({ identifier, orderId, value }) =>
    // A top-level attribute needs no map to exist first: one call creates the order side or adds to it.
    unlessRefused(() =>
      documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: orderSideKey(pixelId, identifier),
          UpdateExpression: 'SET #k = :value',
          ConditionExpression: 'attribute_not_exists(#k) OR #k.v <= :v',
          ExpressionAttributeNames: { '#k': `or:${orderId}` },
          ExpressionAttributeValues: { ':value': value, ':v': value.v },
        }),
      ),
    ),
  );
  // A write refused for an older version still names identifiers whose person may have changed.
  return new Set(writes.map(({ identifier }) => identifier));
}

/** An order's date as the journey items know it: set from the order store's state, never from an older version. */
interface OrderDate {
  v: number;
  at: string;
}

/**
 * Projector step for every order a batch touched (events, import, rebuild): records its date on
 * its `o:` order side, so the resolution files its journey under the right day. Returns the
 * identifiers written (a date that moved needs its journey filed again).
 */
export async function applyOrderDates(pixelId: string, orders: readonly VersionedOrder[], dated: ReadonlySet<string> = new Set()): Promise<Set<string>> {
  const latest = latestVersions(orders);
  await mapWithConcurrency([...latest.values()].filter(({ order }) => !dated.has(order.orderId)), WRITE_CONCURRENCY, (entry) => {
    const { d, fd } = datedAttributes(pixelId, entry);
    return unlessRefused(() =>
      documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: orderSideKey(pixelId, `o:${entry.order.orderId}`),
          UpdateExpression: 'SET d = :d ADD fd :fd',
          ConditionExpression: 'attribute_not_exists(d) OR d.v <= :v',
          ExpressionAttributeValues: { ':d': d, ':fd': fd, ':v': d.v },
        }),
      ),
    );
  });
  return new Set([...latest.keys()].map((orderId) => `o:${orderId}`));
}

/**
 * Projector step for orders whose statements were all taken back: forgets their date (unless a
 * newer version of the order stored one since), on the order side and where items written before
 * the order side kept it, on the `JOURNEY` item, so the resolution takes their journeys back.
 * Returns their `o:` identifiers.
 */
export async function forgetOrderDates(pixelId: string, deleted: ReadonlyArray<{ orderId: string; version: number }>): Promise<Set<string>> {
  const removals = deleted.flatMap(({ orderId, version }) => [orderSideKey, journeyKey].map((keyOf) => ({ key: keyOf(pixelId, `o:${orderId}`), version })));
  await mapWithConcurrency(removals, WRITE_CONCURRENCY, ({ key, version }) =>
    unlessRefused(() =>
      documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: key,
          UpdateExpression: 'REMOVE d',
          ConditionExpression: 'd.v <= :v',
          ExpressionAttributeValues: { ':v': version },
        }),
      ),
    ),
  );
  return new Set(deleted.map(({ orderId }) => `o:${orderId}`));
}

/**
 * What a query reads of one order: its person's touchpoints in (order time − the longest window,
 * order time] (`inWindow`), oldest first, as `[id, at, source, utm…, campaignId, adsetId, adId]`
 * rows; at most `MAX_JOURNEY_BYTES` of them, the latest (a person with more touchpoints than that
 * in 90 days is a shared identifier, not a shopper, and one item may not pass 400 KB).
 */
function journeyRows(window: readonly PersonTouchpoint[]): string {
  const rows: string[] = [];
  let bytes = 2;
  for (let i = window.length - 1; i >= 0; i--) {
    const row = JSON.stringify([window[i]!.delivery, ...window[i]!.entry]);
    bytes += Buffer.byteLength(row) + 1;
    if (bytes > MAX_JOURNEY_BYTES) break;
    rows.push(row);
  }
  return `[${rows.reverse().join(',')}]`;
}

/**
 * Writes the journeys of a pixel that has none yet from whole sets, with batched puts of the same
 * items the projector keeps, order journeys filed (benchmark datasets, the first start's demo).
 * Not for a pixel with journey items already.
 */
export async function writeInitialJourneys(pixelId: string, deliveries: readonly JourneyDelivery[], orders: readonly VersionedOrder[] = []): Promise<void> {
  const items = new Map<string, { l: Record<string, unknown>; t: Record<string, string> }>();
  const itemOf = (identifier: string) => {
    let item = items.get(identifier);
    if (!item) items.set(identifier, (item = { l: {}, t: {} }));
    return item;
  };
  // What orders say goes on the identifiers' order sides, as `applyJourneyOrders` and `applyOrderDates` write it.
  const orderSides = new Map<string, Record<string, unknown>>();
  const orderSideOf = (identifier: string) => {
    let item = orderSides.get(identifier);
    if (!item) orderSides.set(identifier, (item = {}));
    return item;
  };
  const people = new IdentityComponents();
  for (const { entryId, event } of deliveries) {
    const writes = writesOf(entryId, event);
    for (const write of writes) itemOf(write.identifier)[write.map][write.key] = write.value;
    if (writes.length > 0) people.link([...new Set(writes.map((write) => write.identifier))]);
  }
  for (const { order, version } of orders) {
    const ids = orderIdentifiers(order);
    orderSideOf(`o:${order.orderId}`).d = { v: version, at: order.orderDate };
    people.link(ids);
    if (ids.length < 2) continue;
    for (const identifier of ids) orderSideOf(identifier)[`or:${order.orderId}`] = { v: version, ids: JSON.stringify(ids) };
  }
  const touchpointsOf = new Map<string, PersonTouchpoint[]>();
  for (const [identifier, item] of items) {
    const root = people.root(identifier);
    const list = touchpointsOf.get(root) ?? [];
    for (const [delivery, text] of Object.entries(item.t)) {
      const entry = JSON.parse(text) as TouchpointEntry;
      list.push({ delivery, identifier, at: entry[0], entry });
    }
    touchpointsOf.set(root, list);
  }
  for (const list of touchpointsOf.values()) list.sort(byTime);
  const days = new Map<string, { key: ItemKey; jo: Record<string, { g: number; a: number; j: string }> }>();
  for (const [identifier, item] of orderSides) {
    const date = item.d as OrderDate | undefined;
    if (!date) continue;
    const orderId = identifier.slice(2);
    const at = Date.parse(date.at);
    const rows = journeyRows(inWindow(touchpointsOf.get(people.root(identifier)) ?? [], at));
    const key = journeyItemKey(pixelId, orderId, at, rows);
    const day = days.get(key.SK) ?? { key, jo: {} };
    day.jo[orderId] = { g: 0, a: at, j: rows };
    Object.assign(item, { fd: new Set([key.SK]) });
    days.set(key.SK, day);
  }
  // Seeded items are whole sets of a few entries each; `sz` counts them as `setEntries` would.
  const mapBytes = (map: Record<string, unknown>) => Object.entries(map).reduce((sum, [key, value]) => sum + Buffer.byteLength(key) + (typeof value === 'string' ? Buffer.byteLength(value) + 8 : 0), 0);
  const puts: WriteRequest[] = [...items].map(([identifier, maps]) => ({ PutRequest: { Item: packJourney({ ...journeyKey(pixelId, identifier), ...maps, sz: mapBytes(maps.l) + mapBytes(maps.t) }) } }));
  for (const [identifier, item] of orderSides) puts.push({ PutRequest: { Item: { ...orderSideKey(pixelId, identifier), ...item } } });
  for (const { key, jo } of days.values()) puts.push({ PutRequest: { Item: { ...key, jo } } });
  await batchWrite(puts, { concurrency: WRITE_CONCURRENCY });
}

/**
 * The links a journey item names, each as a group with the item's own identifier, and where it
 * came from: a delivery's entry (`ev:<eventId>@<entryId>`) or an imported order (`or:<orderId>`).
 */
function linksOf(identifier: string, item: Record<string, unknown>): Array<{ group: string[]; entryId?: string; orderId?: string }> {
  return Object.entries((item.l ?? {}) as Record<string, string | { ids: string }>).map(([key, value]) => {
    const group = [identifier, ...(JSON.parse(typeof value === 'string' ? value : value.ids) as string[])];
    if (key.startsWith('or:')) return { group, orderId: key.slice(3) };
    // `eg:<entryId>#<day>#<digest>` (a group's link), or `ev:<eventId>@<entryId>` (one delivery's, before group links).
    return { group, entryId: key.startsWith('eg:') ? key.slice(3, key.indexOf('#')) : entryOfDelivery(key.slice(3)) };
  });
}

/** A delivery id's entry: entry ids are ULIDs, so the last `@` ends the client's eventId. */
const entryOfDelivery = (delivery: string) => delivery.slice(delivery.lastIndexOf('@') + 1);

const identifierOf = (pixelId: string, item: Record<string, unknown>) => (item.PK as string).slice(pixelJourneysPk(pixelId).length);

/** A number no earlier resolution of the pixel's persons got: later resolutions' writes win over earlier ones'. */
async function nextGeneration(pixelId: string): Promise<number> {
  const { Attributes } = await documentClient.send(
    new UpdateCommand({ TableName: tableName(), Key: generationKey(pixelId), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 }, ReturnValues: 'UPDATED_NEW' }),
  );
  return Number(Attributes!.n);
}

/** What one projected batch changed in the journey items, for `resolvePersons`. */
export interface PersonChanges {
  /** Identifiers whose links, touchpoints or order date the batch wrote (or took back). */
  touched: Iterable<string>;
  /** Identifiers of deliveries the batch took back: their persons may have split, and are filed whole. */
  split?: Iterable<string>;
  /** The batch's log entries: their touchpoints are new, and a merge their links make is filed. */
  entryIds: ReadonlySet<string>;
  /** Orders whose date the batch set or forgot, or whose customer links it wrote: each is filed again. */
  orderIds: ReadonlySet<string>;
  /**
   * Journey items whose current content the caller knows (`applyJourneyEvents`' `written`): taken
   * as they are instead of read again, so a batch reads again only the items it did not write.
   */
  known?: ReadonlyMap<string, Record<string, unknown>>;
}

/** Touchpoints of one person, oldest first, parsed once. */
interface PersonTouchpoint {
  delivery: string;
  identifier: string;
  at: number;
  entry: TouchpointEntry;
}

/**
 * Files again the journeys a batch can change, for the persons of the identifiers it touched,
 * from the journey items as they are now. It walks each one's component (every identifier linked
 * to it, transitively), then files an order of the component again only when the batch can have
 * changed its journey, the touchpoints of the person in (order time − 90 days, order time]:
 * - the batch set, moved or forgot the order's date, or linked it (`orderIds`);
 * - a touchpoint of the batch's own entries falls in that window;
 * - the batch merged persons: a touchpoint of another part falls in that window, where the parts
 *   are the components without the links not yet known to be filed, those of the batch's entries
 *   and orders, and those of entries still pending in the log (a batch that stored its links and
 *   failed before filing, whose retry has not run yet);
 * - the batch took a delivery back (`split`): every order of the person is filed again.
 * So a batch costs writes for the orders it can change, not for a person's whole history: a page
 * view of a returning customer with hundreds of orders files the few orders of the next 90 days.
 *
 * Exact under P6's guarantees: what is written for an order depends only on the links,
 * touchpoints and dates stored. Every fact's batch files the orders the fact can change, from a
 * read that starts after its own writes (a retry files them again), and of two batches whose facts
 * only together change an order (a link and a touchpoint, a date and a link), the later one reads
 * the other's fact, and its own fact puts the order in its set. Concurrent batches (stream shards,
 * an import or a rebuild beside the drain): each takes a generation once its own writes are stored
 * and an order's entry only replaces an older generation's, so the last filing, which read
 * everything stored before it started, stands.
 */
export async function resolvePersons(pixelId: string, changes: PersonChanges): Promise<void> {
  const split = new Set(changes.split ?? []);
  let pending = [...new Set([...changes.touched, ...split])];
  if (pending.length === 0) return;
  const generation = await nextGeneration(pixelId);
  const people = new IdentityComponents();
  const journeys = new Map<string, Record<string, unknown>>();
  const links: Array<{ group: string[]; entryId?: string; orderId?: string }> = [];
  const fetched = new Set<string>();
  while (pending.length > 0) {
    for (const identifier of pending) {
      fetched.add(identifier);
      people.link([identifier]);
    }
    const items = await readIdentifiers(pixelId, pending, changes.known);
    const next = new Set<string>();
    for (const item of items) {
      const identifier = identifierOf(pixelId, item);
      journeys.set(identifier, item);
      for (const link of linksOf(identifier, item)) {
        links.push(link);
        people.link(link.group);
        for (const id of link.group) if (!fetched.has(id)) next.add(id);
      }
    }
    pending = [...next];
  }
  const splitRoots = new Set([...split].map((identifier) => people.root(identifier)));
  const unfiled = await pendingEntries(pixelId, links.flatMap(({ entryId }) => (entryId === undefined || changes.entryIds.has(entryId) ? [] : [entryId])));
  const parts = new IdentityComponents();
  for (const identifier of journeys.keys()) parts.link([identifier]);
  for (const { group, entryId, orderId } of links) {
    const known = entryId !== undefined ? !changes.entryIds.has(entryId) && !unfiled.has(entryId) : !changes.orderIds.has(orderId!);
    if (known) parts.link(group);
  }
  const touchpointsOf = new Map<string, PersonTouchpoint[]>();
  for (const [identifier, item] of journeys) {
    const root = people.root(identifier);
    let list = touchpointsOf.get(root);
    if (!list) touchpointsOf.set(root, (list = []));
    for (const [delivery, text] of Object.entries((item.t ?? {}) as Record<string, string>)) {
      const entry = JSON.parse(text) as TouchpointEntry;
      list.push({ delivery, identifier, at: entry[0], entry });
    }
  }
  for (const list of touchpointsOf.values()) list.sort(byTime);
  const filings: Array<{ orderId: string; filing?: { at: number; rows: string }; filedUnder: string[]; legacyFiled: ReadonlySet<string> }> = [];
  for (const [identifier, item] of journeys) {
    if (!identifier.startsWith('o:')) continue;
    const orderId = identifier.slice(2);
    const date = item.d as OrderDate | undefined;
    const filedUnder = [...((item.fd as Set<string> | undefined) ?? [])];
    if (!date && filedUnder.length === 0) continue;
    const root = people.root(identifier);
    const at = date && Date.parse(date.at);
    const window = at === undefined ? [] : inWindow(touchpointsOf.get(root) ?? [], at);
    const changed =
      splitRoots.has(root) ||
      changes.orderIds.has(orderId) ||
      window.some((touchpoint) => changes.entryIds.has(entryOfDelivery(touchpoint.delivery)) || parts.root(touchpoint.identifier) !== parts.root(identifier));
    if (!changed) continue;
    // An order without a date (deleted) keeps no journey: only its earlier filings are taken back.
    filings.push({ orderId, filing: at === undefined ? undefined : { at, rows: journeyRows(window) }, filedUnder, legacyFiled: (item[LEGACY_FD] as Set<string> | undefined) ?? new Set() });
  }
  const filedTogether = await fileTogether(pixelId, filings, generation);
  await mapWithConcurrency(filings, WRITE_CONCURRENCY, async ({ orderId, filing, filedUnder, legacyFiled }) => {
    const filedAt = filing && (filedTogether.get(orderId) ?? (await fileOrderJourney(pixelId, orderId, filing.at, filing.rows, generation, filedUnder)));
    for (const other of filedUnder.filter((sk) => sk !== filedAt)) {
      // Refused: a later resolution already wrote there, and its state stands.
      await unlessRefused(() =>
        documentClient.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: { PK: pixelJourneysPk(pixelId), SK: other },
            UpdateExpression: 'REMOVE jo.#o',
            ConditionExpression: 'attribute_exists(jo.#o) AND jo.#o.g < :g',
            ExpressionAttributeNames: { '#o': orderId },
            ExpressionAttributeValues: { ':g': generation },
          }),
        ),
      );
      // Recorded on the order side, or on the `o:` item itself (a purchase's new item, or one
      // written before the order side); conditional, so no order side is made, empty, by this.
      for (const key of [orderSideKey(pixelId, `o:${orderId}`), ...(legacyFiled.has(other) ? [journeyKey(pixelId, `o:${orderId}`)] : [])]) {
        await unlessRefused(() =>
          documentClient.send(
            new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'DELETE fd :day', ConditionExpression: 'attribute_exists(PK)', ExpressionAttributeValues: { ':day': new Set([other]) } }),
          ),
        );
      }
    }
  });
}

/** Order journeys set by one UpdateItem (`fileTogether`): its expressions stay far below DynamoDB's 4 KB. */
const FILINGS_PER_UPDATE = 25;

/**
 * Files together the journeys that go to a day shard their order already records (`fd`), one
 * UpdateItem per shard and up to `FILINGS_PER_UPDATE` orders, each entry on the same condition
 * as `fileUnder`'s: a batch's new orders share the 16 shards of a few days, so this is a few calls
 * instead of one an order. A group refused whole (a later resolution filed one of its orders, the
 * shard is missing or would pass 400 KB) is left to `fileOrderJourney`, order by order, which
 * ends where it would have. Returns the orders filed, with the sort key they are filed under.
 */
async function fileTogether(
  pixelId: string,
  filings: ReadonlyArray<{ orderId: string; filing?: { at: number; rows: string }; filedUnder: readonly string[] }>,
  generation: number,
): Promise<Map<string, string>> {
  const byShard = new Map<string, { key: ItemKey; orders: Array<{ orderId: string; at: number; rows: string }> }>();
  for (const { orderId, filing, filedUnder } of filings) {
    if (!filing) continue;
    const key = journeyItemKey(pixelId, orderId, filing.at, filing.rows);
    if (key.SK !== orderJourneyKey(pixelId, orderId, filing.at).SK || !filedUnder.includes(key.SK)) continue;
    const shard = byShard.get(key.SK) ?? { key, orders: [] };
    shard.orders.push({ orderId, ...filing });
    byShard.set(key.SK, shard);
  }
  const groups = [...byShard.values()].flatMap(({ key, orders }) =>
    Array.from({ length: Math.ceil(orders.length / FILINGS_PER_UPDATE) }, (_, i) => ({ key, orders: orders.slice(i * FILINGS_PER_UPDATE, (i + 1) * FILINGS_PER_UPDATE) })),
  );
  const filed = new Map<string, string>();
  // A lone order is filed the usual way: one call either way.
  await mapWithConcurrency(
    groups.filter(({ orders }) => orders.length > 1),
    WRITE_CONCURRENCY,
    async ({ key, orders }) => {
      const names: Record<string, string> = {};
      const values: Record<string, unknown> = { ':g': generation };
      const sets: string[] = [];
      const conditions = ['attribute_exists(jo)'];
      orders.forEach(({ orderId, at, rows }, i) => {
        names[`#o${i}`] = orderId;
        values[`:e${i}`] = { g: generation, a: at, j: rows };
        sets.push(`jo.#o${i} = :e${i}`);
        conditions.push(`(attribute_not_exists(jo.#o${i}) OR jo.#o${i}.g < :g)`);
      });
      const update = () =>
        documentClient.send(
          new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: `SET ${sets.join(', ')}`, ConditionExpression: conditions.join(' AND '), ExpressionAttributeNames: names, ExpressionAttributeValues: values }),
        );
      try {
        try {
          await update();
        } catch (error) {
          // The day's first filings: the shard is made, and the group tried once more.
          if (!isConditionFailure(error) || !(await createShard(key))) throw error;
          await update();
        }
        for (const { orderId } of orders) filed.set(orderId, key.SK);
      } catch (error) {
        if (!isConditionFailure(error) && !isSizeLimit(error)) throw error;
      }
    },
  );
  return filed;
}

const byTime = (a: PersonTouchpoint, b: PersonTouchpoint) => a.at - b.at || (a.delivery < b.delivery ? -1 : a.delivery > b.delivery ? 1 : 0);

/** The touchpoints (sorted by time) in (at − 90 days, at]. */
function inWindow(sorted: readonly PersonTouchpoint[], at: number): PersonTouchpoint[] {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]!.at <= at - KEPT_MS) low = middle + 1;
    else high = middle;
  }
  const found: PersonTouchpoint[] = [];
  for (let i = low; i < sorted.length && sorted[i]!.at <= at; i++) found.push(sorted[i]!);
  return found;
}

/**
 * Which of these log entries are still pending (stored, not yet marked projected): their links
 * may be a merge whose orders are not filed yet. An entry no longer in the log expired long after
 * it was projected.
 */
async function pendingEntries(pixelId: string, entryIds: readonly string[]): Promise<Set<string>> {
  const settledKey = (entryId: string) => `${tableName()}\u0000${pixelId}\u0000${entryId}`;
  const distinct = [...new Set(entryIds)].filter((entryId) => !settledEntries.has(settledKey(entryId)));
  if (distinct.length === 0) return new Set();
  const items = await batchGet(distinct.map((entryId) => ({ PK: logPartition(pixelId), SK: entryId })), { concurrency: READ_CONCURRENCY, attributes: ['projectedAt'] });
  if (settledEntries.size + items.length > MAX_SETTLED_ENTRIES) settledEntries.clear();
  for (const item of items) if (item.projectedAt !== undefined) settledEntries.add(settledKey(item.SK as string));
  return new Set(items.filter((item) => item.projectedAt === undefined).map((item) => item.SK as string));
}

/**
 * Log entries (by table, pixel and entry) this process found projected. Once projected an
 * entry is never pending again (after it is appended a log item is written only by
 * `markProjected`, which only ever writes it projected, and by a failure record, parking or a
 * replay, which each write it only while it is not projected), so the fact holds for any
 * consumer, retry or order of batches, and a person's earlier entries are read from the log once
 * per process rather than on every walk of that person. Cleared whole when full. (A parked entry
 * is not projected: it counts as pending until a replay has it projected.)
 */
const settledEntries = new Set<string>();
const MAX_SETTLED_ENTRIES = 200_000;


/**
 * Files an order's journey under the item `journeyItemKey` picks, or its own item when that day
 * shard is full; records where in the order's `fd` first. Returns the sort key it is filed under.
 */
async function fileOrderJourney(pixelId: string, orderId: string, at: number, rows: string, generation: number, filedUnder: readonly string[]): Promise<string> {
  const first = journeyItemKey(pixelId, orderId, at, rows);
  try {
    await fileUnder(pixelId, first, orderId, at, rows, generation, filedUnder);
    return first.SK;
  } catch (error) {
    if (!isSizeLimit(error) || first.SK === ownJourneyKey(pixelId, orderId, at).SK) throw error;
    const own = ownJourneyKey(pixelId, orderId, at);
    await fileUnder(pixelId, own, orderId, at, rows, generation, filedUnder);
    return own.SK;
  }
}

/** Creates an empty order-journey item unless it exists; true when this call created it. */
async function createShard(key: ItemKey): Promise<boolean> {
  return unlessRefused(() => documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...key, jo: {} }, ConditionExpression: 'attribute_not_exists(PK)' })));
}

/** DynamoDB's answer to a write that would take an item past 400 KB. */
function isSizeLimit(error: unknown): boolean {
  return (error as Error)?.name === 'ValidationException' && /size/i.test((error as Error).message);
}

async function fileUnder(pixelId: string, key: ItemKey, orderId: string, at: number, rows: string, generation: number, filedUnder: readonly string[]): Promise<void> {
  // Where an order's journey is filed is recorded first (`fd`), so the entry a date move leaves
  // behind is found and removed, by this run or by its retry.
  if (!filedUnder.includes(key.SK)) {
    await documentClient.send(
      new UpdateCommand({ TableName: tableName(), Key: orderSideKey(pixelId, `o:${orderId}`), UpdateExpression: 'ADD fd :day', ExpressionAttributeValues: { ':day': new Set([key.SK]) } }),
    );
  }
  const update = () =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: key,
        UpdateExpression: 'SET jo.#o = :entry',
        ConditionExpression: 'attribute_exists(jo) AND (attribute_not_exists(jo.#o) OR jo.#o.g < :g)',
        ExpressionAttributeNames: { '#o': orderId },
        ExpressionAttributeValues: { ':entry': { g: generation, a: at, j: rows }, ':g': generation },
      }),
    );
  if (await unlessRefused(update)) return;
  await createShard(key);
  // Refused again: a later resolution already filed this order, and its entry stands.
  await unlessRefused(update);
}

/**
 * The touchpoints that may take credit for each order placed in these ranges: its journey
 * entries, read by order day (Queries over the ranges' UTC days, never a walk of the identity
 * graph), before the orders are known, so a query reads them alongside its orders: every order
 * placed in a range is filed under one of those days. The lookup it returns skips an entry of an
 * order not asked for, and one filed under another date than the order's current one (left over
 * from before its date moved); an order without an entry has no touchpoint.
 */
export async function readRangeJourneys(
  pixelId: string,
  ranges: ReadonlyArray<{ start: number; end: number }>,
): Promise<(orders: ReadonlyArray<JourneyOrder>) => Map<string, Touchpoint[]>> {
  const days = new Set<string>();
  for (const range of ranges) {
    for (let day = Math.floor(range.start / 86_400_000) * 86_400_000; day < range.end; day += 86_400_000) days.add(utcDay(day));
  }
  const entries = await readJourneyDays(pixelId, [...days]);
  return (orders) => journeysOf(entries, orders);
}

type JourneyEntries = Map<string, { a: number; j: string }>;

/** The journey entries filed under these UTC days, by order id and order time. */
async function readJourneyDays(pixelId: string, unsortedDays: readonly string[]): Promise<JourneyEntries> {
  const days = [...unsortedDays].sort();
  // Runs of consecutive days, each read by one paginated Query, several at once: far fewer
  // requests than a Query a day, and a range read in parallel pieces.
  const runs: Array<[string, string]> = [];
  const perRun = Math.max(1, Math.ceil(days.length / READ_CONCURRENCY));
  let length = 0;
  for (const day of days) {
    const run = runs[runs.length - 1];
    // A gap of more than two days (a compare range far from the primary one) starts a new run.
    if (run && length < perRun && Date.parse(day) - Date.parse(run[1]) <= 2 * 86_400_000) {
      run[1] = day;
      length++;
    } else {
      runs.push([day, day]);
      length = 1;
    }
  }
  const pages = await mapWithConcurrency(runs, READ_CONCURRENCY, ([first, last]) =>
    queryAll({
      KeyConditionExpression: 'PK = :pk AND SK BETWEEN :first AND :last',
      ExpressionAttributeValues: { ':pk': pixelJourneysPk(pixelId), ':first': `DAY#${first}#`, ':last': `DAY#${last}#~` },
    }),
  );
  const entries: JourneyEntries = new Map();
  for (const items of pages) {
    for (const item of items) {
      for (const [orderId, entry] of Object.entries((item.jo ?? {}) as Record<string, { a: number; j: string }>)) entries.set(`${orderId}\u0000${entry.a}`, entry);
    }
  }
  return entries;
}

/** What finds an order's journey entry: its id and time (`orderTimeOf`: a day copy's order gives it as a number, with no ISO text to write and parse back). */
type JourneyOrder = Pick<QueryOrder, 'orderId' | 'orderDate' | 'orderTime'>;

function journeysOf(entries: JourneyEntries, orders: ReadonlyArray<JourneyOrder>): Map<string, Touchpoint[]> {
  const journeys = new Map<string, Touchpoint[]>();
  for (const order of orders) {
    const entry = entries.get(`${order.orderId}\u0000${orderTimeOf(order)}`);
    if (!entry) continue;
    const rows = JSON.parse(entry.j) as Array<[string, ...TouchpointEntry]>;
    journeys.set(order.orderId, rows.map(([id, ...touchpoint]) => touchpointOf(id, touchpoint as TouchpointEntry)));
  }
  return journeys;
}

/** What the journey items say about a set of identifiers: the links among them, and their touchpoints. */
export interface JourneyGraph {
  /** Every group of identifiers seen together (on an event or an order). */
  links: string[][];
  /** Touchpoints by the identifier they are stored under. */
  touchpoints: Map<string, Touchpoint[]>;
}
