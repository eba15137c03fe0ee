/**
 * The tables of the analytics store: each a set of Parquet files per pixel and UTC date, with the
 * columns below (DuckDB types; Glue's in `GLUE_TYPES`). A table's rows are what was received, as
 * received: which of them are live (a repeated delivery, a superseded statement) is decided by
 * the table's read rule, which every reader applies (event-facts.ts for events). Compaction may
 * only drop or fold rows that rule would not count, which the table says below.
 */
export type ColumnType = 'VARCHAR' | 'BOOLEAN' | 'INTEGER' | 'BIGINT' | 'DOUBLE' | 'DATE' | 'TIMESTAMP' | 'VARCHAR[]';

export interface Column {
  name: string;
  type: ColumnType;
  description: string;
}

export interface TableDefinition {
  name: string;
  description: string;
  /**
   * The column a table's files are sorted by. Unless `buckets` is set it also partitions the
   * table: a file per UTC date of it, under `date=<YYYY-MM-DD>`.
   */
  partitionedBy: string;
  /**
   * A table partitioned by key instead of date: a row lives under `bucket=<NN>`, from a hash of
   * its key (`bucketOf`), one of this many. Every version of a key meets in one partition.
   */
  buckets?: number;
  columns: readonly Column[];
  /**
   * Two rows equal in every column are one fact stored twice (a write repeated by a retry, the
   * same delivery in two batches), so compaction keeps one of them. Set it only when the table's
   * read rule already counts such rows once: then dropping a copy changes no reader's answer.
   * Without it, compaction keeps every row, copies included.
   */
  dropIdenticalRows?: boolean;
  /**
   * The SELECT compaction merges a date's files through, given their rows as `input` (a
   * parenthesised relation with the table's columns): a table whose read rule keeps one row per
   * key can keep only that row (the latest version, say), and leave out tombstones that shadow
   * nothing left. It must give the table's columns and keep every row a reader would count, so
   * that no reader's answer changes; the order does not matter (compaction sorts). The input may
   * be only some of a date's files (a tiered merge), so a row may be left out only for what the
   * input itself holds: a later version in it, not the absence of one. Default:
   * `SELECT * FROM input`, `SELECT DISTINCT *` with `dropIdenticalRows`.
   */
  compactSql?: (input: string) => string;
}

/** How compaction merges a table's rows (`compactSql`, or its default). */
export const compactionSelect = (table: TableDefinition): ((input: string) => string) =>
  table.compactSql ?? ((input) => `SELECT ${table.dropIdenticalRows ? 'DISTINCT ' : ''}* FROM ${input}`);

/** How Athena (Glue) names each type. */
export const GLUE_TYPES: Readonly<Record<ColumnType, string>> = {
  VARCHAR: 'string',
  BOOLEAN: 'boolean',
  INTEGER: 'int',
  BIGINT: 'bigint',
  DOUBLE: 'double',
  DATE: 'date',
  TIMESTAMP: 'timestamp',
  'VARCHAR[]': 'array<string>',
};

/**
 * Accepted tracking events, every delivery of each: the first delivery of an `event_id` in the
 * log (the least `entry_id`) is the event, later ones are repeats. Identity columns hold
 * hashes, never a raw email or phone.
 */
export const EVENTS_TABLE = {
  name: 'events',
  description: 'Accepted tracking events, one row per delivery; partitioned by the UTC date of ts',
  partitionedBy: 'ts',
  // The read rule takes one row per (event_id, entry_id) first, and rows sharing those are equal
  // in every column (an entry's events never change), so a copy of a row is never counted.
  dropIdenticalRows: true,
  columns: [
    { name: 'event_id', type: 'VARCHAR', description: 'The idempotency key: the client\u2019s eventId, or a ULID assigned at receipt' },
    { name: 'entry_id', type: 'VARCHAR', description: 'The ingestion log entry (a ULID, in acceptance order) that delivered it; an entry holds an event_id once' },
    { name: 'name', type: 'VARCHAR', description: 'The event name' },
    { name: 'standard', type: 'BOOLEAN', description: 'Whether the name is a standard event name' },
    { name: 'ts', type: 'TIMESTAMP', description: 'When it happened (UTC): its timestamp, or when it was received' },
    { name: 'received_at', type: 'TIMESTAMP', description: 'When the events API received it (UTC)' },
    { name: 'user_ids', type: 'VARCHAR[]', description: 'user.userIds' },
    { name: 'email_hashes', type: 'VARCHAR[]', description: 'SHA-256 of each normalised email' },
    { name: 'phone_hashes', type: 'VARCHAR[]', description: 'SHA-256 of each normalised phone' },
    { name: 'anonymous_id', type: 'VARCHAR', description: 'user.anonymousId: the first-party browser id' },
    { name: 'ip_address', type: 'VARCHAR', description: 'ipAddress' },
    { name: 'page_url', type: 'VARCHAR', description: 'page.url' },
    { name: 'page_referrer', type: 'VARCHAR', description: 'page.referrer' },
    { name: 'page_title', type: 'VARCHAR', description: 'page.title' },
    { name: 'utm_source', type: 'VARCHAR', description: 'utm_source of the page URL' },
    { name: 'utm_medium', type: 'VARCHAR', description: 'utm_medium of the page URL' },
    { name: 'utm_campaign', type: 'VARCHAR', description: 'utm_campaign of the page URL' },
    { name: 'utm_content', type: 'VARCHAR', description: 'utm_content of the page URL' },
    { name: 'utm_term', type: 'VARCHAR', description: 'utm_term of the page URL' },
    { name: 'fbc', type: 'VARCHAR', description: 'click.fbc' },
    { name: 'fbp', type: 'VARCHAR', description: 'click.fbp' },
    { name: 'gclid', type: 'VARCHAR', description: 'click.gclid' },
    { name: 'ttclid', type: 'VARCHAR', description: 'click.ttclid' },
    { name: 'data', type: 'VARCHAR', description: 'The event\u2019s data, as JSON text' },
  ],
} as const satisfies TableDefinition;

/**
 * Orders as their statements make them, one row per version of an order: a write that changes an
 * order appends its next `revision`, and the row with the highest revision of an `order_id` is the
 * order (a `deleted` one: the order is gone). Partitioned by a hash of `order_id`, not by date: a
 * later statement can move an order to another date, and its versions must meet in one partition
 * for a writer to find the current one and for compaction to keep only it. Files are sorted by
 * `order_date`, so a date range reads only the row groups it needs.
 */
export const ORDERS_TABLE = {
  name: 'orders',
  // Of the versions a merge's input holds, the current one of each order (a tombstone included:
  // it still hides older versions in files outside the input).
  compactSql: (input: string) => CURRENT_ORDERS_SQL(input),
  description: 'Orders, one row per version (the highest revision of an order_id is the order); partitioned by a hash of order_id',
  partitionedBy: 'order_date',
  buckets: 16,
  columns: [
    { name: 'order_id', type: 'VARCHAR', description: 'The shop\u2019s order id' },
    { name: 'revision', type: 'INTEGER', description: 'The version: the highest of an order_id is the order' },
    { name: 'deleted', type: 'BOOLEAN', description: 'Every statement about the order was taken back: it does not exist' },
    { name: 'order_date', type: 'TIMESTAMP', description: 'When the order was placed (UTC)' },
    { name: 'value', type: 'DOUBLE', description: 'The order total, in currency' },
    { name: 'currency', type: 'VARCHAR', description: 'ISO 4217 code' },
    { name: 'source_name', type: 'VARCHAR', description: 'The sales channel' },
    { name: 'tags', type: 'VARCHAR[]', description: 'The order\u2019s tags' },
    { name: 'payment_gateway', type: 'VARCHAR', description: 'The payment gateway' },
    { name: 'financial_status', type: 'VARCHAR', description: 'paid, pending, refunded, partially_refunded, voided' },
    { name: 'refunds', type: 'VARCHAR', description: 'The refunds, as JSON: [{ id?, amount, processedAt }] sorted by processedAt' },
    { name: 'first_refund_at', type: 'TIMESTAMP', description: 'When the earliest refund was processed' },
    { name: 'last_refund_at', type: 'TIMESTAMP', description: 'When the latest refund was processed' },
    { name: 'user_ids', type: 'VARCHAR[]', description: 'The customer\u2019s user ids' },
    { name: 'email_hashes', type: 'VARCHAR[]', description: 'SHA-256 of each normalised email of the customer' },
    { name: 'phone_hashes', type: 'VARCHAR[]', description: 'SHA-256 of each normalised phone of the customer' },
    { name: 'items', type: 'VARCHAR', description: 'The line items, as JSON, when a source stated them' },
    { name: 'shipping_cost', type: 'DOUBLE', description: 'What shipping cost the merchant' },
    { name: 'shipping_charged', type: 'DOUBLE', description: 'What the customer paid for shipping' },
    { name: 'discounts', type: 'DOUBLE', description: 'Discounts' },
    { name: 'taxes', type: 'DOUBLE', description: 'Taxes' },
    { name: 'created_at', type: 'TIMESTAMP', description: 'When the service first received a statement about it' },
    { name: 'updated_at', type: 'TIMESTAMP', description: 'When the service last received one' },
    { name: 'field_times', type: 'VARCHAR', description: 'JSON: when each replaceable field was last stated (the merge rules read it)' },
    { name: 'sources', type: 'VARCHAR', description: 'JSON: every statement about the order by key, from which the row is folded' },
  ],
} as const satisfies TableDefinition;

/**
 * The read rule of the orders table, the one definition readers, writers and compaction use: an
 * order id's row of highest revision. A revision is written once (each on the version of its
 * bucket's live set it was folded from), so that row is one row; a semi-join on the highest
 * revisions lets a reader read only the columns it selects.
 */
export function CURRENT_ORDERS_SQL(rows: string): string {
  return `SELECT * FROM ${rows} SEMI JOIN (SELECT order_id, max(revision) AS revision FROM ${rows} GROUP BY order_id) AS current USING (order_id, revision)`;
}

/** The partition a key's rows live in, for a table with `buckets`: FNV-1a of the key, two digits. */
export function bucketOf(table: Pick<TableDefinition, 'buckets'>, key: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++) hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  return String((hash >>> 0) % table.buckets!).padStart(2, '0');
}

/** Every bucket of a table with `buckets`, in order. */
export const allBuckets = (table: Pick<TableDefinition, 'buckets'>): string[] => Array.from({ length: table.buckets! }, (_, index) => String(index).padStart(2, '0'));

const BUCKETED_TABLES: ReadonlySet<string> = new Set([ORDERS_TABLE.name]);

/** The name of a table's partition column in its file keys: `bucket` or `date`. */
export const partitionNameOf = (table: string): 'bucket' | 'date' => (BUCKETED_TABLES.has(table) ? 'bucket' : 'date');

/*
 * The imported facts: ads, their hourly metrics, exchange rates and SKU costs. Every row carries
 * the import that wrote it (`import_id`, a ULID taken when the import starts, so later imports
 * sort after earlier ones); the read rule of each (ad-facts.ts, fx-rates.ts, sku-costs.ts) keeps,
 * for each key, the row of the latest import. An import writes one file per UTC date it touches,
 * named by its import id, holding each key at most once (its own repeats resolved by the same
 * rule before it is stored).
 */
const IMPORT_ID = { name: 'import_id', type: 'VARCHAR', description: 'The import that wrote the row: a ULID, later imports sorting after earlier ones; for each key the latest import\u2019s row is the live one' } as const;
const AD_KEY = [
  { name: 'platform', type: 'VARCHAR', description: 'meta, google or tiktok' },
  { name: 'ad_id', type: 'VARCHAR', description: 'The platform\u2019s ad id; an ad is platform + ad_id' },
  { name: 'ad_key', type: 'BIGINT', description: 'A 64-bit hash of platform and ad_id (the first 8 bytes of SHA-256 of "<platform>\\n<ad_id>"), so a reader picks ads out of a day\u2019s rows by one integer' },
] as const;

/** Hourly ad metrics as imported, one row per ad, UTC hour and import. */
export const AD_HOURS_TABLE = {
  name: 'ad_hours',
  description: 'Hourly ad metrics as imported, one row per ad, UTC hour and import (the latest import of an hour is live); partitioned by the UTC date of hour',
  partitionedBy: 'hour',
  columns: [
    ...AD_KEY,
    { name: 'hour', type: 'TIMESTAMP', description: 'The start of the UTC hour' },
    { name: 'spend', type: 'DOUBLE', description: 'Spend in the ad account\u2019s currency (the ad\u2019s currency in the ads table)' },
    { name: 'impressions', type: 'BIGINT', description: 'Impressions' },
    { name: 'clicks', type: 'BIGINT', description: 'Clicks' },
    { name: 'conversions', type: 'BIGINT', description: 'Conversions' },
    { name: 'conversion_value', type: 'DOUBLE', description: 'Conversion value in the ad account\u2019s currency' },
    IMPORT_ID,
  ],
} as const satisfies TableDefinition;

/** Ad metadata, one row per ad and import. */
export const ADS_TABLE = {
  name: 'ads',
  description: 'Ad metadata as imported, one row per ad and import (the latest import of an ad is live); partitioned by the UTC date of imported_at',
  partitionedBy: 'imported_at',
  columns: [
    ...AD_KEY,
    { name: 'account_id', type: 'VARCHAR', description: 'accountId' },
    { name: 'account_name', type: 'VARCHAR', description: 'accountName' },
    { name: 'campaign_id', type: 'VARCHAR', description: 'campaignId' },
    { name: 'campaign_name', type: 'VARCHAR', description: 'campaignName' },
    { name: 'adset_id', type: 'VARCHAR', description: 'adsetId' },
    { name: 'adset_name', type: 'VARCHAR', description: 'adsetName' },
    { name: 'ad_name', type: 'VARCHAR', description: 'adName' },
    { name: 'status', type: 'VARCHAR', description: 'status' },
    { name: 'configured_status', type: 'VARCHAR', description: 'configuredStatus' },
    { name: 'effective_status', type: 'VARCHAR', description: 'effectiveStatus' },
    { name: 'currency', type: 'VARCHAR', description: 'The ad account\u2019s currency (ISO 4217), of every money field of the ad and its hours' },
    { name: 'daily_budget', type: 'DOUBLE', description: 'dailyBudget' },
    { name: 'budget_remaining', type: 'DOUBLE', description: 'budgetRemaining' },
    { name: 'amount_spent', type: 'DOUBLE', description: 'amountSpent' },
    { name: 'created_at', type: 'VARCHAR', description: 'createdAt, as an ISO 8601 UTC date-time with milliseconds' },
    { name: 'updated_at', type: 'VARCHAR', description: 'updatedAt, as an ISO 8601 UTC date-time with milliseconds' },
    { name: 'imported_at', type: 'TIMESTAMP', description: 'When the import started (UTC)' },
    IMPORT_ID,
  ],
} as const satisfies TableDefinition;

/** Exchange rates, one row per date, currency and import. */
export const FX_RATES_TABLE = {
  name: 'fx_rates',
  description: 'Exchange rates as imported, units of a currency per 1 USD, one row per date, currency and import (the latest import is live); partitioned by the UTC date of imported_at',
  partitionedBy: 'imported_at',
  columns: [
    { name: 'date', type: 'DATE', description: 'The date the rate is for' },
    { name: 'currency', type: 'VARCHAR', description: 'ISO 4217 code' },
    { name: 'units_per_usd', type: 'DOUBLE', description: 'Units of the currency per 1 USD' },
    { name: 'imported_at', type: 'TIMESTAMP', description: 'When the import started (UTC)' },
    IMPORT_ID,
  ],
} as const satisfies TableDefinition;

/** SKU unit costs, one row per SKU, start date and import. */
export const SKU_COSTS_TABLE = {
  name: 'sku_costs',
  description: 'SKU unit costs as imported, one row per SKU, effective_from and import (the latest import is live); partitioned by the UTC date of imported_at',
  partitionedBy: 'imported_at',
  columns: [
    { name: 'sku', type: 'VARCHAR', description: 'The SKU' },
    { name: 'effective_from', type: 'DATE', description: 'First UTC date the cost applies to' },
    { name: 'effective_to', type: 'DATE', description: 'Last UTC date it applies to; null: open-ended' },
    { name: 'cost', type: 'DOUBLE', description: 'The unit cost' },
    { name: 'currency', type: 'VARCHAR', description: 'The cost\u2019s currency (ISO 4217)' },
    { name: 'imported_at', type: 'TIMESTAMP', description: 'When the import started (UTC)' },
    IMPORT_ID,
  ],
} as const satisfies TableDefinition;

/**
 * Every table of the store: what `npm run compact` and the sweep of replaced files go through
 * when no table is named. A table joins by being listed here.
 */
export const ANALYTICS_TABLES: readonly TableDefinition[] = [EVENTS_TABLE, ORDERS_TABLE, ADS_TABLE, AD_HOURS_TABLE, FX_RATES_TABLE, SKU_COSTS_TABLE];

/** The registered table of that name, or undefined. */
export const analyticsTable = (name: string): TableDefinition | undefined => ANALYTICS_TABLES.find((table) => table.name === name);

/** The DDL of a table's columns, as DuckDB takes it. */
export const columnsDdl = (table: TableDefinition): string => table.columns.map((column) => `"${column.name}" ${column.type}`).join(', ');
