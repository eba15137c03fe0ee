import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { identityKeys } from '../analytics/identity-components';
import { classifyTouchpoint, type Touchpoint } from '../attribution/touchpoints';
import { mapWithConcurrency } from '../map-with-concurrency';
import type { Order } from '../orders/order';
import type { StoredEvent } from '../tracking/stored-event';
import { batchGet, type ItemKey } from './batch-get';
import { setMapEntries } from './map-entries';
import { batchWrite, type WriteRequest } from './batch-write';
import { documentClient, tableName } from './dynamo-client';
import type { VersionedOrder } from './order-repository';

/**
 * The read models of POST /db-mgmt/api/query-attribution: the identity graph and each person's
 * touchpoints, kept by the `attribution-journeys` projector.
 *
 * One item per identifier, `PIXEL#<p>#AJ#<identifier>` / `JOURNEY`, with two maps:
 * - `l` (links): identifiers seen together with this one: `ev:<eventId>@<entryId>` → JSON list:
 *   in the item of the event's first identifier, its other identifiers; in the others' items, the
 *   first one; `or:<orderId>` → `{ v, ids }`, an imported order's identifiers (with the order
 *   store's version, never replaced by an older one);
 * - `t` (touchpoints): `<eventId>@<entryId>` → JSON `[at, source, utm_source, utm_medium,
 *   utm_campaign, utm_content, utm_term, campaignId, adsetId, adId]`, under the first identifier of
 *   the event only (its `a:` anonymous id when it has one).
 * and a pointer per delivery of a client eventId, `PIXEL#<p>#AJD#<eventId>#<entryId>` / `POINTER`
 * { ids }, naming the items that delivery wrote, so a delivery that later loses to an earlier one
 * (P6's `superseded`) is taken back exactly.
 *
 * Identifiers: `a:` anonymous id, `u:` user id, `e:` email hash, `p:` phone hash, `f:` click.fbp,
 * `o:` order id (a purchase event carrying `data.orderId`, and the order itself).
 *
 * Why one item per identifier: a query walks the graph from its orders' identifiers, one batched
 * read per round, and the same reads hand it the touchpoints; it never reads another person's or
 * the pixel's whole history. Entries are keyed by delivery or order, written with a plain SET
 * (a duplicate rewrites the same value), so the state depends only on which deliveries won.
 */
const JOURNEY_SK = 'JOURNEY';
const POINTER_SK = 'POINTER';
const WRITE_CONCURRENCY = 8;
const READ_CONCURRENCY = 8;
const ENTRIES_PER_UPDATE = 40;
/** A chain of linked identifiers longer than this is cut; real journeys close in a few rounds. */
const MAX_ROUNDS = 12;

export const journeyKey = (pixelId: string, identifier: string): ItemKey => ({ PK: `PIXEL#${pixelId}#AJ#${identifier}`, SK: JOURNEY_SK });
const deliveryPointerKey = (pixelId: string, eventId: string, entryId: string): ItemKey => ({ PK: `PIXEL#${pixelId}#AJD#${eventId}#${entryId}`, SK: POINTER_SK });

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

/** What one stored delivery writes: its links in each identifier's item, its touchpoint under the first. */
export function writesOf(entryId: string, event: StoredEvent): EntryWrite[] {
  const ids = eventIdentifiers(event);
  if (ids.length === 0) return [];
  const delivery = deliveryId(event.eventId, entryId);
  const writes: EntryWrite[] = [];
  // A lone identifier links nothing; only events that tie two together are kept as links. The
  // first identifier's item holds the whole list; each other one's names the first only (a star:
  // the walk reaches the whole list in one more round, and the items stay small).
  if (ids.length >= 2) {
    const [hub, ...others] = ids as [string, ...string[]];
    writes.push({ identifier: hub, map: 'l', key: `ev:${delivery}`, value: JSON.stringify(others) });
    for (const identifier of others) writes.push({ identifier, map: 'l', key: `ev:${delivery}`, value: JSON.stringify([hub]) });
  }
  const touchpoint = touchpointEntry(event);
  if (touchpoint) writes.push({ identifier: ids[0]!, map: 't', key: delivery, value: JSON.stringify(touchpoint) });
  return writes;
}

function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error as Error)?.name === 'ConditionalCheckFailedException';
}

async function ensureJourneyItem(key: ItemKey): Promise<void> {
  try {
    await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...key, l: {}, t: {} }, ConditionExpression: 'attribute_not_exists(PK)' }));
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}

async function setEntries(pixelId: string, identifier: string, writes: readonly EntryWrite[]): Promise<void> {
  await setMapEntries(journeyKey(pixelId, identifier), ['l', 't'], writes);
}

/**
 * Projector step for stored events (P6's winners of a batch), keyed by the delivery's entry. A
 * client eventId's delivery records its pointer before its entries, so a crash in between leaves
 * what `retractDeliveries` needs.
 */
export async function applyJourneyEvents(pixelId: string, deliveries: ReadonlyArray<{ entryId: string; event: StoredEvent }>): Promise<void> {
  const byIdentifier = new Map<string, EntryWrite[]>();
  const pointers: WriteRequest[] = [];
  for (const { entryId, event } of deliveries) {
    const writes = writesOf(entryId, event);
    if (writes.length === 0) continue;
    for (const write of writes) {
      const list = byIdentifier.get(write.identifier);
      if (list) list.push(write);
      else byIdentifier.set(write.identifier, [write]);
    }
    if (event.eventIdSource === 'client') {
      pointers.push({ PutRequest: { Item: { ...deliveryPointerKey(pixelId, event.eventId, entryId), ids: [...new Set(writes.map((write) => write.identifier))].sort() } } });
    }
  }
  if (byIdentifier.size === 0) return;
  await batchWrite(pointers, { concurrency: WRITE_CONCURRENCY });
  const updates = [...byIdentifier].flatMap(([identifier, writes]) => {
    const chunks: Array<{ identifier: string; writes: EntryWrite[] }> = [];
    for (let i = 0; i < writes.length; i += ENTRIES_PER_UPDATE) chunks.push({ identifier, writes: writes.slice(i, i + ENTRIES_PER_UPDATE) });
    return chunks;
  });
  await mapWithConcurrency(updates, WRITE_CONCURRENCY, ({ identifier, writes }) => setEntries(pixelId, identifier, writes));
}

/**
 * Takes back what deliveries that lost to an earlier delivery of their eventId wrote: the entries
 * their pointer names, then the pointer (last, so a crash before it is finished by the retry).
 */
export async function retractDeliveries(pixelId: string, deliveries: ReadonlyArray<{ entryId: string; eventId: string }>): Promise<void> {
  await mapWithConcurrency(deliveries, WRITE_CONCURRENCY, async ({ entryId, eventId }) => {
    const key = deliveryPointerKey(pixelId, eventId, entryId);
    const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    if (!Item) return;
    const delivery = deliveryId(eventId, entryId);
    for (const identifier of Item.ids as string[]) {
      try {
        await documentClient.send(
          new UpdateCommand({
            TableName: tableName(),
            Key: journeyKey(pixelId, identifier),
            UpdateExpression: 'REMOVE l.#l, t.#t',
            ConditionExpression: 'attribute_exists(l)',
            ExpressionAttributeNames: { '#l': `ev:${delivery}`, '#t': delivery },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
    await documentClient.send(new DeleteCommand({ TableName: tableName(), Key: key }));
  });
}

/**
 * Projector step for orders: links an order's id to its customer's identifiers in each of their
 * items, unless an item holds a newer version of the order's link. An order's identifiers only
 * grow (merge-order.ts), so a newer version's links cover an older one's.
 */
export async function applyJourneyOrders(pixelId: string, orders: readonly VersionedOrder[]): Promise<void> {
  const latest = new Map<string, VersionedOrder>();
  for (const entry of orders) {
    const known = latest.get(entry.order.orderId);
    if (!known || known.version <= entry.version) latest.set(entry.order.orderId, entry);
  }
  const writes = [...latest.values()].flatMap(({ order, version }) => {
    const ids = orderIdentifiers(order);
    // An order without a customer links nothing: its own id is where its purchase events meet it.
    if (ids.length < 2) return [];
    return ids.map((identifier) => ({ identifier, orderId: order.orderId, value: { v: version, ids: JSON.stringify(ids) } }));
  });
  await mapWithConcurrency(writes, WRITE_CONCURRENCY, async ({ identifier, orderId, value }) => {
    const update = () =>
      documentClient.send(
        new UpdateCommand({
          TableName: tableName(),
          Key: journeyKey(pixelId, identifier),
          UpdateExpression: 'SET l.#k = :value',
          ConditionExpression: 'attribute_exists(l) AND (attribute_not_exists(l.#k) OR l.#k.v <= :v)',
          ExpressionAttributeNames: { '#k': `or:${orderId}` },
          ExpressionAttributeValues: { ':value': value, ':v': value.v },
        }),
      );
    try {
      await update();
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      await ensureJourneyItem(journeyKey(pixelId, identifier));
      try {
        await update();
      } catch (again) {
        if (!isConditionFailure(again)) throw again;
      }
    }
  });
}

/**
 * Writes the journeys of a pixel that has none yet from whole sets, with batched puts of the same
 * items the projector keeps (benchmark datasets). Not for a pixel with journey items already.
 */
export async function writeInitialJourneys(pixelId: string, deliveries: ReadonlyArray<{ entryId: string; event: StoredEvent }>, orders: readonly VersionedOrder[] = []): Promise<void> {
  const items = new Map<string, { l: Record<string, unknown>; t: Record<string, string> }>();
  const itemOf = (identifier: string) => {
    let item = items.get(identifier);
    if (!item) items.set(identifier, (item = { l: {}, t: {} }));
    return item;
  };
  const pointers: WriteRequest[] = [];
  for (const { entryId, event } of deliveries) {
    const writes = writesOf(entryId, event);
    for (const write of writes) itemOf(write.identifier)[write.map][write.key] = write.value;
    if (writes.length > 0 && event.eventIdSource === 'client') {
      pointers.push({ PutRequest: { Item: { ...deliveryPointerKey(pixelId, event.eventId, entryId), ids: [...new Set(writes.map((write) => write.identifier))].sort() } } });
    }
  }
  for (const { order, version } of orders) {
    const ids = orderIdentifiers(order);
    if (ids.length < 2) continue;
    for (const identifier of ids) itemOf(identifier).l[`or:${order.orderId}`] = { v: version, ids: JSON.stringify(ids) };
  }
  const puts: WriteRequest[] = [...items].map(([identifier, maps]) => ({ PutRequest: { Item: { ...journeyKey(pixelId, identifier), ...maps } } }));
  await batchWrite([...puts, ...pointers], { concurrency: WRITE_CONCURRENCY });
}

/** What the journey items say about a set of identifiers: the links among them, and their touchpoints. */
export interface JourneyGraph {
  /** Every group of identifiers seen together (on an event or an order). */
  links: string[][];
  /** Touchpoints by the identifier they are stored under. */
  touchpoints: Map<string, Touchpoint[]>;
}

/**
 * Walks the identity graph from `start`: reads the items of the identifiers met, then of the
 * identifiers their links name, until no new one appears. One batched read per round, of the
 * persons met only.
 */
export async function readJourneyGraph(pixelId: string, start: readonly string[]): Promise<JourneyGraph> {
  const graph: JourneyGraph = { links: [], touchpoints: new Map() };
  const fetched = new Set<string>();
  let pending = [...new Set(start)];
  for (let round = 0; pending.length > 0 && round < MAX_ROUNDS; round++) {
    for (const identifier of pending) fetched.add(identifier);
    const items = await batchGet(pending.map((identifier) => journeyKey(pixelId, identifier)), { concurrency: READ_CONCURRENCY });
    const next = new Set<string>();
    for (const item of items) {
      const identifier = (item.PK as string).slice(`PIXEL#${pixelId}#AJ#`.length);
      for (const value of Object.values((item.l ?? {}) as Record<string, string | { ids: string }>)) {
        const ids = JSON.parse(typeof value === 'string' ? value : value.ids) as string[];
        graph.links.push([identifier, ...ids]);
        for (const id of ids) if (!fetched.has(id)) next.add(id);
      }
      const touchpoints = Object.entries((item.t ?? {}) as Record<string, string>).map(([id, text]) => touchpointOf(id, JSON.parse(text) as TouchpointEntry));
      if (touchpoints.length > 0) graph.touchpoints.set(identifier, touchpoints);
    }
    pending = [...next];
  }
  return graph;
}
