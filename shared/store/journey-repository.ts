import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { IdentityComponents, identityKeys } from '../analytics/identity-components';
import { classifyTouchpoint, type Touchpoint } from '../attribution/touchpoints';
import { mapWithConcurrency } from '../map-with-concurrency';
import type { Order } from '../orders/order';
import type { StoredEvent } from '../tracking/stored-event';
import { batchGet, type ItemKey } from './batch-get';
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
const PERSON_SK = 'PERSON';
const GENERATION_SK = 'GENERATION';
const WRITE_CONCURRENCY = 8;
const READ_CONCURRENCY = 8;
const ENTRIES_PER_UPDATE = 40;

export const journeyKey = (pixelId: string, identifier: string): ItemKey => ({ PK: `PIXEL#${pixelId}#AJ#${identifier}`, SK: JOURNEY_SK });
/** The person whose smallest identifier is `root`: the union of its members' touchpoints. */
export const personKey = (pixelId: string, root: string): ItemKey => ({ PK: `PIXEL#${pixelId}#AJ#${root}`, SK: PERSON_SK });
/** The pixel's counter of person resolutions; no identifier is empty, so this key is no identifier's. */
const generationKey = (pixelId: string): ItemKey => ({ PK: `PIXEL#${pixelId}#AJ#`, SK: GENERATION_SK });
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
  const names: Record<string, string> = {};
  const values: Record<string, string> = {};
  const sets = writes.map((write, i) => {
    names[`#k${i}`] = write.key;
    values[`:v${i}`] = write.value;
    return `${write.map}.#k${i} = :v${i}`;
  });
  const update = () =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: journeyKey(pixelId, identifier),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: 'attribute_exists(l)',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
  try {
    await update();
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    await ensureJourneyItem(journeyKey(pixelId, identifier));
    await update();
  }
}

/**
 * Projector step for stored events (P6's winners of a batch), keyed by the delivery's entry. A
 * client eventId's delivery records its pointer before its entries, so a crash in between leaves
 * what `retractDeliveries` needs.
 */
export async function applyJourneyEvents(pixelId: string, deliveries: ReadonlyArray<{ entryId: string; event: StoredEvent }>): Promise<Set<string>> {
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
  if (byIdentifier.size === 0) return new Set();
  await batchWrite(pointers, { concurrency: WRITE_CONCURRENCY });
  const updates = [...byIdentifier].flatMap(([identifier, writes]) => {
    const chunks: Array<{ identifier: string; writes: EntryWrite[] }> = [];
    for (let i = 0; i < writes.length; i += ENTRIES_PER_UPDATE) chunks.push({ identifier, writes: writes.slice(i, i + ENTRIES_PER_UPDATE) });
    return chunks;
  });
  await mapWithConcurrency(updates, WRITE_CONCURRENCY, ({ identifier, writes }) => setEntries(pixelId, identifier, writes));
  return new Set(byIdentifier.keys());
}

/**
 * Takes back what deliveries that lost to an earlier delivery of their eventId wrote: the entries
 * their pointer names. Returns the pointers read (their identifiers need their persons resolved
 * again); `deletePointers` removes them once that is done, so a crash before it is finished by the retry.
 */
export async function retractDeliveries(pixelId: string, deliveries: ReadonlyArray<{ entryId: string; eventId: string }>): Promise<Array<{ key: ItemKey; ids: string[] }>> {
  const found = await mapWithConcurrency(deliveries, WRITE_CONCURRENCY, async ({ entryId, eventId }) => {
    const key = deliveryPointerKey(pixelId, eventId, entryId);
    const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    if (!Item) return undefined;
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
    return { key, ids: Item.ids as string[] };
  });
  return found.filter((pointer) => pointer !== undefined);
}

export async function deletePointers(pointers: ReadonlyArray<{ key: ItemKey }>): Promise<void> {
  await mapWithConcurrency(pointers, WRITE_CONCURRENCY, ({ key }) => documentClient.send(new DeleteCommand({ TableName: tableName(), Key: key })));
}

/**
 * Projector step for orders: links an order's id to its customer's identifiers in each of their
 * items, unless an item holds a newer version of the order's link. An order's identifiers only
 * grow (merge-order.ts), so a newer version's links cover an older one's.
 */
export async function applyJourneyOrders(pixelId: string, orders: readonly VersionedOrder[]): Promise<Set<string>> {
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
  // A write refused for an older version still names identifiers whose person may have changed.
  return new Set(writes.map(({ identifier }) => identifier));
}

/**
 * Writes the journeys of a pixel that has none yet from whole sets, with batched puts of the same
 * items the projector keeps, persons resolved (benchmark datasets). Not for a pixel with journey items already.
 */
export async function writeInitialJourneys(pixelId: string, deliveries: ReadonlyArray<{ entryId: string; event: StoredEvent }>, orders: readonly VersionedOrder[] = []): Promise<void> {
  const items = new Map<string, { l: Record<string, unknown>; t: Record<string, string>; c?: string; g?: number }>();
  const itemOf = (identifier: string) => {
    let item = items.get(identifier);
    if (!item) items.set(identifier, (item = { l: {}, t: {} }));
    return item;
  };
  const people = new IdentityComponents();
  const pointers: WriteRequest[] = [];
  for (const { entryId, event } of deliveries) {
    const writes = writesOf(entryId, event);
    for (const write of writes) itemOf(write.identifier)[write.map][write.key] = write.value;
    if (writes.length > 0) people.link([...new Set(writes.map((write) => write.identifier))]);
    if (writes.length > 0 && event.eventIdSource === 'client') {
      pointers.push({ PutRequest: { Item: { ...deliveryPointerKey(pixelId, event.eventId, entryId), ids: [...new Set(writes.map((write) => write.identifier))].sort() } } });
    }
  }
  for (const { order, version } of orders) {
    const ids = orderIdentifiers(order);
    if (ids.length < 2) continue;
    people.link(ids);
    for (const identifier of ids) itemOf(identifier).l[`or:${order.orderId}`] = { v: version, ids: JSON.stringify(ids) };
  }
  const persons = new Map<string, { members: number; t: Record<string, string> }>();
  for (const [identifier, item] of items) {
    const root = people.root(identifier);
    const person = persons.get(root) ?? { members: 0, t: {} };
    person.members++;
    Object.assign(person.t, item.t);
    persons.set(root, person);
  }
  for (const [identifier, item] of items) {
    const root = people.root(identifier);
    if (persons.get(root)!.members > 1) Object.assign(item, { c: root, g: 0 });
  }
  const puts: WriteRequest[] = [...items].map(([identifier, maps]) => ({ PutRequest: { Item: { ...journeyKey(pixelId, identifier), ...maps } } }));
  for (const [root, person] of persons) {
    if (person.members > 1) puts.push({ PutRequest: { Item: { ...personKey(pixelId, root), t: person.t, g: 0 } } });
  }
  await batchWrite([...puts, ...pointers], { concurrency: WRITE_CONCURRENCY });
}

/** The groups of identifiers a journey item's links name, each with the item's own identifier. */
function linksOf(identifier: string, item: Record<string, unknown>): string[][] {
  return Object.values((item.l ?? {}) as Record<string, string | { ids: string }>).map((value) => [identifier, ...(JSON.parse(typeof value === 'string' ? value : value.ids) as string[])]);
}

const identifierOf = (pixelId: string, item: Record<string, unknown>) => (item.PK as string).slice(`PIXEL#${pixelId}#AJ#`.length);

/** A number no earlier resolution of the pixel's persons got: later resolutions' writes win over earlier ones'. */
async function nextGeneration(pixelId: string): Promise<number> {
  const { Attributes } = await documentClient.send(
    new UpdateCommand({ TableName: tableName(), Key: generationKey(pixelId), UpdateExpression: 'ADD n :one', ExpressionAttributeValues: { ':one': 1 }, ReturnValues: 'UPDATED_NEW' }),
  );
  return Number(Attributes!.n);
}

async function fenced(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error) {
    // A later resolution already wrote this item (or the identifier lost its last entry): its state stands.
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * Resolves the persons of `touched` (identifiers whose links or touchpoints a batch changed) from
 * the journey items as they are now: walks each one's whole component (every identifier linked to
 * it, transitively), then writes on every member its component's root `c` (the smallest
 * identifier; none for a member alone) and, under the root, the person item holding the union of
 * the members' touchpoints. A root that is no longer one has its person item emptied.
 *
 * Exact under P6's guarantees: the result depends only on the links stored, so a retried or
 * repeated batch writes the same; a merge or a split (a delivery taken back) changes the
 * component of an identifier the batch touched, so that batch resolves it. Concurrent batches
 * (stream shards, an import or a rebuild beside the drain): each takes a generation after its links
 * are stored and writes only over older generations, so the last resolution, which read every
 * link stored before it started, decides what stays.
 */
export async function resolvePersons(pixelId: string, touched: Iterable<string>): Promise<void> {
  let pending = [...new Set(touched)];
  if (pending.length === 0) return;
  const generation = await nextGeneration(pixelId);
  const people = new IdentityComponents();
  const journeys = new Map<string, Record<string, unknown>>();
  const persons = new Map<string, Record<string, unknown>>();
  const fetched = new Set<string>();
  while (pending.length > 0) {
    for (const identifier of pending) {
      fetched.add(identifier);
      people.link([identifier]);
    }
    const items = await batchGet(
      pending.flatMap((identifier) => [journeyKey(pixelId, identifier), personKey(pixelId, identifier)]),
      { concurrency: READ_CONCURRENCY },
    );
    const next = new Set<string>();
    for (const item of items) {
      const identifier = identifierOf(pixelId, item);
      if (item.SK === PERSON_SK) {
        persons.set(identifier, item);
        continue;
      }
      journeys.set(identifier, item);
      for (const link of linksOf(identifier, item)) {
        people.link(link);
        for (const id of link) if (!fetched.has(id)) next.add(id);
      }
    }
    pending = [...next];
  }
  const members = new Map<string, string[]>();
  for (const identifier of fetched) {
    const root = people.root(identifier);
    const list = members.get(root);
    if (list) list.push(identifier);
    else members.set(root, [identifier]);
  }
  const fence = { ':g': generation };
  const writes: Array<() => Promise<void>> = [];
  for (const [root, ids] of members) {
    const alone = ids.length === 1;
    for (const identifier of ids) {
      if (!journeys.has(identifier)) continue;
      writes.push(() =>
        fenced(() =>
          documentClient.send(
            new UpdateCommand({
              TableName: tableName(),
              Key: journeyKey(pixelId, identifier),
              UpdateExpression: alone ? 'REMOVE c SET g = :g' : 'SET c = :c, g = :g',
              ConditionExpression: 'attribute_exists(l) AND (attribute_not_exists(g) OR g < :g)',
              ExpressionAttributeValues: alone ? fence : { ...fence, ':c': root },
            }),
          ),
        ),
      );
    }
    if (alone) continue;
    const touchpoints: Record<string, string> = {};
    for (const identifier of ids) Object.assign(touchpoints, journeys.get(identifier)?.t ?? {});
    writes.push(() => putPerson(pixelId, root, touchpoints, generation));
  }
  for (const [identifier, item] of persons) {
    const stillRoot = (members.get(identifier)?.length ?? 0) > 1;
    if (!stillRoot && Object.keys((item.t ?? {}) as object).length > 0) writes.push(() => putPerson(pixelId, identifier, {}, generation));
  }
  await mapWithConcurrency(writes, WRITE_CONCURRENCY, (write) => write());
}

function putPerson(pixelId: string, root: string, touchpoints: Record<string, string>, generation: number): Promise<void> {
  return fenced(() =>
    documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...personKey(pixelId, root), t: touchpoints, g: generation },
        ConditionExpression: 'attribute_not_exists(g) OR g < :g',
        ExpressionAttributeValues: { ':g': generation },
      }),
    ),
  );
}

/** What the journey items say about a set of identifiers: the links among them, and their touchpoints. */
export interface JourneyGraph {
  /** Every group of identifiers seen together (on an event or an order). */
  links: string[][];
  /** Touchpoints by the identifier they are stored under. */
  touchpoints: Map<string, Touchpoint[]>;
}

function addTouchpoints(graph: JourneyGraph, identifier: string, entries: unknown): void {
  const list = Object.entries((entries ?? {}) as Record<string, string>);
  if (list.length === 0) return;
  graph.touchpoints.set(identifier, list.map(([id, text]) => touchpointOf(id, JSON.parse(text) as TouchpointEntry)));
}

/**
 * The persons of `start` (an order's identifiers) in two batched reads, never a walk: each
 * identifier's root `c` (with its own touchpoints when it is alone), then the person items of the
 * roots met. The links returned tie each identifier to its root.
 */
export async function readJourneyGraph(pixelId: string, start: readonly string[]): Promise<JourneyGraph> {
  const graph: JourneyGraph = { links: [], touchpoints: new Map() };
  const items = await batchGet([...new Set(start)].map((identifier) => journeyKey(pixelId, identifier)), { concurrency: READ_CONCURRENCY, attributes: ['c', 't'] });
  const roots = new Set<string>();
  for (const item of items) {
    const identifier = identifierOf(pixelId, item);
    if (typeof item.c === 'string') {
      graph.links.push([identifier, item.c]);
      roots.add(item.c);
    } else {
      addTouchpoints(graph, identifier, item.t);
    }
  }
  const persons = await batchGet([...roots].map((root) => personKey(pixelId, root)), { concurrency: READ_CONCURRENCY, attributes: ['t'] });
  for (const item of persons) addTouchpoints(graph, identifierOf(pixelId, item), item.t);
  return graph;
}
