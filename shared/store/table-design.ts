import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The single-table layout. The CDK stack, the local server and the test setup all build the
 * table from these names, so the three can never drift apart.
 *
 * Item families (partition key / sort key):
 * - API key:          `APIKEY#<sha256>` / `APIKEY`; GSI1 lists a pixel's keys, GSI2 finds one by apiKeyPk
 * - Order settings:   `PIXEL#<pixelId>` / `ORDER_SETTINGS` (head) and
 *                     `PIXEL#<pixelId>` / `ORDER_SETTINGS#<version>#<n>` (overflow chunks)
 * - Ads of a pixel:   `PIXEL#<pixelId>#ADS` / `DIRECTORY` (head: `version`, bumped by every import)
 *                     and `PIXEL#<pixelId>#ADS` / `AD#<platform>#<adId>` (metadata, JSON in `ad`);
 *                     one Query lists a pixel's ads, and the head validates a cached list
 * - Hourly metrics:   `PIXEL#<pixelId>#AD#<platform>#<adId>` / `M#<YYYY-MM>`, one item per ad per
 *                     UTC month, the hours packed in the Binary `data` (hourly-metrics-codec.ts);
 *                     a date range is one Query over the months it touches
 * - Exchange rates:   `PIXEL#<pixelId>#FX` / `DIRECTORY` (head: `version`) and
 *                     `PIXEL#<pixelId>#FX` / `DATE#<YYYY-MM-DD>` (`rates`: JSON, units per 1 USD)
 * - Dashboard views:  `PIXEL#<pixelId>#VIEWS` / `VIEW#<dashboardViewId>`, one item per view: summary
 *                     members as attributes, `configuration` as JSON text (≤ 256 KiB), `version` for
 *                     conditional updates, `createdByApiKeyPk`/`updatedByApiKeyPk` for audit (never
 *                     returned); the list is one Query projecting the summary, a view one GetItem
 * - Tracking events:  `PIXEL#<pixelId>#EV#<YYYY-MM-DD>#<shard 0-3>` / `<timestamp ISO>#<eventId>`
 *                     (`event`: JSON; `name`, `eventId`, `timestamp`); a time range is one Query per
 *                     UTC day and shard with SK BETWEEN two instants (event-repository.ts)
 * - Event id markers: `PIXEL#<pixelId>#EVID#<eventId>` / `EVID` (where that client id's event is
 *                     stored), claimed with attribute_not_exists: one event per client eventId
 * - Orders:           `PIXEL#<pixelId>#ORDER#<orderId>` / `ORDER` (attributes, `version`); GSI1
 *                     `PIXEL#<pixelId>#ORDERS#<YYYY-MM>` / `<orderDate ISO>#<orderId>` lists a
 *                     pixel's orders by order date (order-repository.ts)
 * - Query read models: `PIXEL#<pixelId>#QO#<day>#<shard>`, `#QR#<day>#<shard>`, `#QC#<identity>`
 *                     (order facts by order day, refund day, customer identifier; `FACTS`),
 *                     `#QP#<orderId>` / `POINTER`, `#QE#<day>#<shard>` / `FACTS` (event facts) and
 *                     `#QEH#<day>` / `ROLLUP` (event counts by hour) (query-read-models.ts)
 */
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
