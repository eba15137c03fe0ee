import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync, constants as zlib } from 'node:zlib';
import { DeleteCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { RetryableFault } from '../faults';
import { mapWithConcurrency } from '../map-with-concurrency';
import { batchGet, type ItemKey } from './batch-get';
import { bulkDocumentClient, documentClient, tableName } from './dynamo-client';
import { queryAll } from './query-all';
import { transactionChunks } from './transaction-chunks';
import { VersionedCache } from './versioned-cache';

/**
 * The eventId dedup index: which delivery of each client eventId is the stored one, packed many
 * eventIds to an item instead of one marker item per eventId (which cost a read and a write of
 * its own per event and bounded projection).
 *
 * Items: `PK=PIXEL#<pixelId>#EVIDX#<bucket 00-31>`  `SK=<page 0000…>`
 *        { data: gzip(JSON of [eventId, entry][] sorted by eventId), count, version, ttl }
 * An eventId lives in the bucket a hash of it names (so its lookups never depend on when or in
 * which order deliveries came), in any page of that bucket; a bucket is read whole with one
 * Query. New eventIds go to the bucket's last page; a page whose compressed data would pass
 * `PAGE_MAX_BYTES` is split, so an item stays far below DynamoDB's 400 KB (a page is
 * `PAGE_MAX_BYTES` of data plus a few dozen bytes, and one entry alone, however large, is far below the limit; an entry is at most a 128-character eventId,
 * its position, day, order and the pages it won over, a few hundred bytes before compression).
 *
 * Retention: an entry keeps its eventId deduplicated for `DEDUP_RETENTION_DAYS` after the stored
 * delivery was accepted (its `ttl`). A later delivery accepted after that is a new event. Entries
 * past it are dropped when their page is rewritten, and a page's own `ttl` is its latest entry's,
 * so DynamoDB deletes a page once all of it has expired.
 *
 * Writes are conditional on the `version` each page was read at, a batch's pages up to 100 to a
 * transaction (`writePages`): a pixel's entries are projected by one consumer at a time, so a
 * failed condition means another one (an import's drain racing the server's) got there first,
 * and the batch is retried whole on fresh pages.
 *
 * Reading: a bucket is listed with one Query that returns each page's key, `version` and `stamp`
 * only; a page's entries come from this process's cache when it holds that very (version, stamp),
 * else from one BatchGetItem of the pages missing. A consumer mostly re-reads pages it wrote
 * itself a moment before, so a batch costs the listing, not the decoding of the pixel's whole
 * index (which grew with every eventId of the retention window, on every batch). `stamp` is random
 * per write: a page deleted by TTL and created again by another process starts at version 1
 * again, and must not match what this process cached of its earlier life.
 */
export const DEDUP_BUCKETS = 32;
/**
 * Compressed entries per page (about 200 to 400 eventIds, 20 to 40 bytes each): a page item
 * stays under ~9 KB, far from DynamoDB's 400 KB. Only the pages that gain or change entries are
 * rewritten, mostly a bucket's last one, so small pages keep each batch's writes (and their
 * encoding) small; more pages cost little to list, and unchanged ones come from the cache.
 */
export const PAGE_MAX_BYTES = 8_000;
const CONCURRENCY = 8;

/** Where the stored delivery of a client eventId is, and what later deliveries it won over. */
export interface EventMarker {
  eventId: string;
  /** Log position of the stored delivery: `<entryId>#<index in entry, 3 digits>`. */
  pos: string;
  page: ItemKey;
  /** Pages holding later deliveries this one won over: each lists the eventId as superseded. */
  supersedes: ItemKey[];
  /** The order the stored delivery speaks about, if it does. */
  orderId?: string;
  /** Orders later deliveries spoke about: none may keep a statement under this eventId but `orderId`. */
  supersededOrders: string[];
  ttl: number;
}

/** An entry as packed: pages are named by their UTC day and entry, the shard follows from the entry. */
interface PackedEntry {
  p: string;
  d: string;
  s?: Array<[string, string]>;
  o?: string;
  so?: string[];
  t: number;
}

interface IndexPage {
  key: ItemKey;
  /** undefined: a page this run creates. */
  version: number | undefined;
  /** Shared with the cache until this run changes the page (it copies them first, see `own`). */
  entries: Map<string, PackedEntry>;
  /** Whether `entries` is this run's own copy. */
  owned?: boolean;
  /** The encoded entries, once laid out for writing. */
  data?: Buffer;
}

/**
 * Pages' entries by key, each at one version and stamp (a write replaces its page's entry), bounded
 * by entries held: 1 million eventIds, about 150 MB at worst, of a function's 1 GB.
 */
const pageCache = new VersionedCache<Map<string, PackedEntry>>({ maxEntries: 20_000, maxWeight: 1_000_000, weigh: (entries) => entries.size + 1 });
const cacheKey = (key: ItemKey) => `${key.PK}\u0000${key.SK}`;
const cacheVersion = (version: number, stamp: string) => `${version}:${stamp}`;
const newStamp = () => randomBytes(8).toString('base64url');

/** The pages of the buckets a batch's eventIds fall in, as read; `write` takes it back. */
export interface DedupIndex {
  pixelId: string;
  markers: Map<string, EventMarker>;
  buckets: Map<number, IndexPage[]>;
}

export type PageKeyOf = (day: string, entryId: string) => ItemKey;

/**
 * FNV-1a over the eventId's UTF-16 code units: a bucket needs spread, not secrecy, and this runs
 * once per event (a SHA-256 per event was a measurable share of a batch's CPU). Stable forever:
 * changing it would lose every stored entry.
 */
export function dedupBucketOf(eventId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < eventId.length; i++) hash = Math.imul(hash ^ eventId.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % DEDUP_BUCKETS;
}

const bucketPartition = (pixelId: string, bucket: number) => `PIXEL#${pixelId}#EVIDX#${String(bucket).padStart(2, '0')}`;
const pageSortKey = (n: number) => String(n).padStart(4, '0');

/** Reads the whole buckets the eventIds fall in (one Query each) and returns their entries for those eventIds. */
export async function readDedupIndex(pixelId: string, eventIds: readonly string[], pageKeyOf: PageKeyOf): Promise<DedupIndex> {
  const wanted = new Set(eventIds);
  const bucketIds = [...new Set(eventIds.map(dedupBucketOf))].sort((a, b) => a - b);
  const buckets = new Map<number, IndexPage[]>();
  const missing: IndexPage[] = [];
  await mapWithConcurrency(bucketIds, CONCURRENCY, async (bucket) => {
    const listed = await queryAll({
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': bucketPartition(pixelId, bucket) },
      ProjectionExpression: 'PK, SK, #version, stamp',
      ExpressionAttributeNames: { '#version': 'version' },
      ConsistentRead: true,
    });
    const pages = listed.map((item): IndexPage => {
      const key = { PK: item.PK as string, SK: item.SK as string };
      const version = item.version as number;
      const cached = typeof item.stamp === 'string' ? pageCache.get(cacheKey(key), cacheVersion(version, item.stamp)) : undefined;
      const page: IndexPage = { key, version, entries: cached ?? new Map() };
      if (!cached) missing.push(page);
      return page;
    });
    buckets.set(bucket, pages);
  });
  if (missing.length > 0) {
    // Read as they are now: a page written since it was listed is taken at its newer version,
    // which is the version its write will be conditional on.
    const byKey = new Map(missing.map((page) => [`${page.key.PK}\u0000${page.key.SK}`, page]));
    for (const item of await batchGet(missing.map((page) => page.key), { concurrency: CONCURRENCY })) {
      const page = byKey.get(`${item.PK as string}\u0000${item.SK as string}`)!;
      page.version = item.version as number;
      page.entries = new Map(JSON.parse(gunzipSync(item.data as Uint8Array).toString('utf8')) as Array<[string, PackedEntry]>);
      if (typeof item.stamp === 'string') pageCache.set(cacheKey(page.key), cacheVersion(page.version, item.stamp), page.entries);
      byKey.delete(`${item.PK as string}\u0000${item.SK as string}`);
    }
    // A page deleted since it was listed (all its entries expired) holds nothing: it is left out.
    for (const gone of byKey.values()) {
      for (const [bucket, pages] of buckets) buckets.set(bucket, pages.filter((page) => page !== gone));
    }
  }
  const markers = new Map<string, EventMarker>();
  for (const eventId of wanted) {
    for (const page of buckets.get(dedupBucketOf(eventId)) ?? []) {
      const entry = page.entries.get(eventId);
      if (entry) markers.set(eventId, unpack(eventId, entry, pageKeyOf));
    }
  }
  return { pixelId, markers, buckets };
}

/**
 * Stores the given markers in the pages read, dropping entries whose `ttl` is not after
 * `expiredBy`, and writes the pages that changed: new pages first, then the pages entries left or
 * changed in, so a crash between two writes never loses an entry (at worst one is in two pages,
 * with the same content). Each write is conditional on the page's version.
 */
export async function writeDedupIndex(index: DedupIndex, markers: readonly EventMarker[], expiredBy: number): Promise<void> {
  const changedByBucket = new Map<number, EventMarker[]>();
  for (const marker of markers) {
    const bucket = dedupBucketOf(marker.eventId);
    const changes = changedByBucket.get(bucket);
    if (changes) changes.push(marker);
    else changedByBucket.set(bucket, [marker]);
  }
  const created: IndexPage[] = [];
  const rewritten: IndexPage[] = [];
  for (const [bucket, changes] of changedByBucket) {
    const pages = index.buckets.get(bucket) ?? [];
    const touched = new Set<IndexPage>();
    let nextPage = pages.reduce((max, page) => Math.max(max, Number(page.key.SK) + 1), 0);
    const newPage = (): IndexPage => {
      const page: IndexPage = { key: { PK: bucketPartition(index.pixelId, bucket), SK: pageSortKey(nextPage++) }, version: undefined, entries: new Map(), owned: true };
      pages.push(page);
      return page;
    };
    for (const marker of changes) {
      const home = pages.find((page) => page.entries.has(marker.eventId)) ?? pages.at(-1) ?? newPage();
      own(home).entries.set(marker.eventId, pack(marker));
      touched.add(home);
    }
    for (const page of touched) for (const [eventId, entry] of page.entries) if (entry.t <= expiredBy) page.entries.delete(eventId);
    // Split any page over the bound: its upper half moves to a new page, until every page fits.
    const queue = [...touched];
    const encoded = new Map<IndexPage, Buffer>();
    while (queue.length > 0) {
      const page = queue.shift()!;
      const data = encode(page.entries);
      if (data.length <= PAGE_MAX_BYTES || page.entries.size < 2) {
        encoded.set(page, data);
        continue;
      }
      const sorted = [...page.entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const moved = newPage();
      for (const [eventId, entry] of sorted.slice(Math.floor(sorted.length / 2))) {
        page.entries.delete(eventId);
        moved.entries.set(eventId, entry);
      }
      queue.push(page, moved);
    }
    for (const [page, data] of encoded) {
      page.data = data;
      (page.version === undefined ? created : rewritten).push(page);
    }
  }
  await writePages([...created, ...rewritten]);
}

/** The page's entries as this run's own copy: the cached map stays as its version holds it, whatever this run does. */
function own(page: IndexPage): IndexPage {
  if (!page.owned) {
    page.entries = new Map(page.entries);
    page.owned = true;
  }
  return page;
}

/** A page's write, as one action of a transaction: its put (its delete once it is empty), conditional on the version it was read at. */
interface PageWrite {
  page: IndexPage;
  action: { Put: PutAction } | { Delete: DeleteAction };
  /** What the cache holds for the page once the write is stored (a deleted page holds nothing). */
  stored?: { version: number; stamp: string };
}
type Condition = { ConditionExpression: string; ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> };
type PutAction = { TableName: string; Item: Record<string, unknown> } & Condition;
type DeleteAction = { TableName: string; Key: ItemKey } & Condition;

function pageWrite(page: IndexPage): PageWrite | undefined {
  const condition: Condition =
    page.version === undefined
      ? { ConditionExpression: 'attribute_not_exists(PK)' }
      : { ConditionExpression: '#version = :version', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': page.version } };
  if (page.entries.size === 0) {
    // A page this run made and emptied again was never stored.
    return page.version === undefined ? undefined : { page, action: { Delete: { TableName: tableName(), Key: page.key, ...condition } } };
  }
  const ttl = Math.max(...[...page.entries.values()].map((entry) => entry.t));
  const stored = { version: (page.version ?? 0) + 1, stamp: newStamp() };
  const Item = { ...page.key, data: page.data ?? encode(page.entries), count: page.entries.size, version: stored.version, stamp: stored.stamp, ttl };
  return { page, action: { Put: { TableName: tableName(), Item, ...condition } }, stored };
}

/**
 * Writes the pages in the order given (new pages before the pages entries left or changed in),
 * up to 100 to a TransactWriteItems call: a batch's few dozen pages are one call instead of one
 * each (a call costs the SDK and the store far more than a page does; DynamoDB bills a
 * transaction's items at twice the write units of a plain put, so a lone page is a plain put).
 * Each call is awaited before the next, so no write of a failed batch is still in flight when it
 * is retried. A refused condition means another consumer wrote the index since it was read: the
 * batch is retried whole, on fresh pages.
 */
async function writePages(pages: readonly IndexPage[]): Promise<void> {
  const writes = pages.map(pageWrite).filter((write): write is PageWrite => write !== undefined);
  for (const chunk of transactionChunks(writes, ({ page }) => (page.data?.length ?? 0) + 200)) {
    try {
      if (chunk.length > 1) await bulkDocumentClient.send(new TransactWriteCommand({ TransactItems: chunk.map(({ action }) => action) }));
      else if ('Put' in chunk[0]!.action) await documentClient.send(new PutCommand(chunk[0]!.action.Put));
      else await documentClient.send(new DeleteCommand(chunk[0]!.action.Delete));
    } catch (error) {
      const name = (error as Error)?.name;
      if (name !== 'ConditionalCheckFailedException' && name !== 'TransactionCanceledException') throw error;
      throw new RetryableFault('The eventId index changed while this batch was projected', { cause: error });
    }
    for (const { page, stored } of chunk) {
      if (!stored) continue;
      pageCache.set(cacheKey(page.key), cacheVersion(stored.version, stored.stamp), page.entries);
      // The page now holds what is stored, and its map is the cache's: a later change copies it again.
      page.version = stored.version;
      page.owned = false;
    }
  }
}

/** Entries sorted by eventId: the same set of entries always gives the same bytes. */
function encode(entries: Map<string, PackedEntry>): Buffer {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return gzipSync(JSON.stringify(sorted), { level: zlib.Z_BEST_SPEED });
}

const dayOfPagePK = (PK: string) => PK.split('#EV#')[1]!.slice(0, 10);

function pack(marker: EventMarker): PackedEntry {
  return {
    p: marker.pos,
    d: dayOfPagePK(marker.page.PK),
    ...(marker.supersedes.length > 0 ? { s: marker.supersedes.map((page): [string, string] => [dayOfPagePK(page.PK), page.SK]) } : {}),
    ...(marker.orderId !== undefined ? { o: marker.orderId } : {}),
    ...(marker.supersededOrders.length > 0 ? { so: marker.supersededOrders } : {}),
    t: marker.ttl,
  };
}

function unpack(eventId: string, entry: PackedEntry, pageKeyOf: PageKeyOf): EventMarker {
  const entryId = entry.p.slice(0, entry.p.lastIndexOf('#'));
  return {
    eventId,
    pos: entry.p,
    page: pageKeyOf(entry.d, entryId),
    supersedes: (entry.s ?? []).map(([day, pageEntryId]) => pageKeyOf(day, pageEntryId)),
    ...(entry.o !== undefined ? { orderId: entry.o } : {}),
    supersededOrders: entry.so ?? [],
    ttl: entry.t,
  };
}
