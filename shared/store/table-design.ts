import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The single-table layout. The CDK stack, the local server and the test setup all build the
 * table from these names, so the three can never drift apart.
 *
 * Item families (partition key / sort key):
 * - API key:          `APIKEY#<sha256>` / `APIKEY`; GSI1 lists a pixel's keys, GSI2 finds one by apiKeyPk
 * - Order settings:   `PIXEL#<pixelId>` / `ORDER_SETTINGS` (head, with the `outbox` until published) and
 *                     `PIXEL#<pixelId>` / `ORDER_SETTINGS#<version>#<n>` (overflow chunks)
 * - Account:          `PIXEL#<pixelId>` / `ACCOUNT` (name, reporting zone, currency; `outbox` until
 *                     published, like the order-settings head) (account-repository.ts)
 * - Cost settings:    `PIXEL#<pixelId>` / `COST_SETTINGS` (one JSON snapshot, `version`, the `outbox` until
 *                     published, like the order-settings head) (cost-settings-repository.ts)
 * - Dashboard views:  `PIXEL#<pixelId>#VIEWS` / `VIEW#<dashboardViewId>`, one item per view: summary
 *                     members as attributes, `configuration` as JSON text (≤ 256 KiB), `version` for
 *                     conditional updates, `createdByApiKeyPk`/`updatedByApiKeyPk` for audit (never
 *                     returned); the list is one Query projecting the summary, a view one GetItem
 * - Ingestion log:    `PIXEL#<pixelId>#LOG` / `<entryId ULID>`, one item per accepted request (events
 *                     gzipped in `data`), pending until projected (log-repository.ts)
 * - Event pages:      `PIXEL#<pixelId>#EV#<YYYY-MM-DD>#<shard 0-3>` / `<entryId>`: one entry's events
 *                     of one UTC day, gzipped, with a `superseded` set (event-repository.ts)
 * - EventId dedup index: `PIXEL#<pixelId>#EVIDX#<bucket 00-31>` / `<page 0000…>`: which delivery of
 *                     each client eventId is the stored one (first in the log) and where it is, many
 *                     eventIds a page (gzipped, pages under 32 KB of data; dedup-index.ts)
 * - Attribution journeys: `PIXEL#<pixelId>#AJ#<identifier>` / `JOURNEY` (links `l` and touchpoints `t`
 *                     of one identifier, packed in `j` when the item is put whole, written by events only; a purchase's new `o:` item also its
 *                     order's date `d` and filing `fd`) and its pages past 300 KB `/ JOURNEY#<n>`,
 *                     `/ ORDER` (its order side: imported orders' links `or:<orderId>`; on an `o:`
 *                     identifier its date `d` and the days its journey is filed under `fd`),
 *                     `PIXEL#<pixelId>#AJ#` / `DAY#<YYYY-MM-DD>#<00-15>` (each order's journey, by
 *                     UTC order day, map `jo`; a large one alone in `…#<00-15>#<orderId>`) and `/ GENERATION` (the counter of
 *                     person resolutions) (journey-repository.ts; the `#AJD#` pointer items of
 *                     earlier layouts are no longer read, and expire or may be deleted)
 * - Analytics partitions: `PIXEL#<pixelId>#PARQUET#<table>` / `<YYYY-MM-DD>` (or `<00-15>`, the
 *                     orders' buckets): the live Parquet files of one partition of a table in the
 *                     analytics store (`files`, a string set, and `version`) (analytics/store/partitions.ts):
 *                     events, orders, ads, ad hours, exchange rates, SKU costs
 * - Idempotency keys: `PIXEL#<pixelId>#IDEMPOTENCY` / `<METHOD> <route path>#<key>` (claim state,
 *                     request fingerprint, recorded response; `ttl`) (idempotency-repository.ts)
 * - Pending index:    GSI2 `PENDING#<shard 0-7>` / `<pixelId>#<ULID>` on log entries and `<pixelId>#!<ULID>` on
 *                     settings heads with an outbox, until the pipeline consumer has handled them (pending-index.ts;
 *                     items written before the pixel led the sort key have a bare `<ULID>`)
 * - Parked index:     GSI2 `PARKED#<shard 0-7>` / the same sort key, on pending items that kept failing, with
 *                     `attempts`, `lastErrorName`, `lastErrorMessage`, `firstFailedAt`, `lastFailedAt`,
 *                     `parkedAt`, until `npm run replay-parked` puts them back (pending-failures.ts)
 *
 * `ttl` (epoch seconds) is the table's time-to-live attribute, on projected log entries, event
 * pages, dedup index pages and idempotency keys: DynamoDB deletes an item some time after it. Deletion is
 * late (and never happens on dynalite), so readers treat an item whose `ttl` has passed as absent.
 */
export const TTL_ATTRIBUTE = 'ttl';

export const TABLE_KEYS = {
  partitionKey: 'PK',
  sortKey: 'SK',
  indexes: [
    { name: 'GSI1', partitionKey: 'GSI1PK', sortKey: 'GSI1SK' },
    { name: 'GSI2', partitionKey: 'GSI2PK', sortKey: 'GSI2SK' },
  ],
} as const;

/** CreateTable input for local and test tables; the deployed table is declared in `lib/`. */
export function createTableInput(tableName: string): CreateTableCommandInput {
  const attributeNames = [
    TABLE_KEYS.partitionKey,
    TABLE_KEYS.sortKey,
    ...TABLE_KEYS.indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: attributeNames.map((AttributeName) => ({ AttributeName, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: TABLE_KEYS.indexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
  };
}

/**
 * The item families above as IAM sees them: the partition-key patterns (`StringLike`, `*` any run
 * of characters) a function's grant on a family allows through `dynamodb:LeadingKeys`. `notLike`
 * excludes what the pattern would also match: `PIXEL#*` alone would match every pixel partition,
 * so the heads say "no further `#`". A family read through a secondary index names it; its pattern
 * is then that index's partition key. lib/routes.ts says which families each route reaches, and
 * test/fuzz/route-table-access.test.ts checks it against the keys the handlers really touch.
 */
export const ITEM_KINDS = {
  apiKey: { pattern: 'APIKEY#*' },
  /** `PIXEL#<pixelId>`: order settings (head and chunks), account, cost settings. */
  pixelHead: { pattern: 'PIXEL#*', notLike: 'PIXEL#*#*' },
  dashboardViews: { pattern: 'PIXEL#*#VIEWS' },
  ingestionLog: { pattern: 'PIXEL#*#LOG' },
  idempotency: { pattern: 'PIXEL#*#IDEMPOTENCY' },
  journeys: { pattern: 'PIXEL#*#AJ#*' },
  analyticsPartitions: { pattern: 'PIXEL#*#PARQUET#*' },
} as const satisfies Record<string, { pattern: string; notLike?: string; index?: (typeof TABLE_KEYS.indexes)[number]['name'] }>;

export type ItemKind = keyof typeof ITEM_KINDS;

/** What IAM's StringLike does with one pattern: `*` any characters (here none of `?`). */
export function matchesKeyPattern(pattern: string, value: string): boolean {
  const expression = pattern.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${expression}$`, 's').test(value);
}

/** Whether a partition-key value belongs to a family, as the grant's conditions would judge it. */
export function isOfKind(kind: ItemKind, value: string): boolean {
  const spec: { pattern: string; notLike?: string } = ITEM_KINDS[kind];
  return matchesKeyPattern(spec.pattern, value) && (spec.notLike === undefined || !matchesKeyPattern(spec.notLike, value));
}
