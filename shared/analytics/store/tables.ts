/**
 * The tables of the analytics store: each a set of Parquet files per pixel and UTC date, with the
 * columns below (DuckDB types; Glue's in `GLUE_TYPES`). A table's rows are what was received, as
 * received: which of them are live (a repeated delivery, a superseded statement) is decided by
 * the table's read rule, applied by every reader and by compaction alike (live-rows.ts).
 */
export type ColumnType = 'VARCHAR' | 'BOOLEAN' | 'INTEGER' | 'BIGINT' | 'DOUBLE' | 'TIMESTAMP' | 'VARCHAR[]';

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
}

/** How Athena (Glue) names each type. */
export const GLUE_TYPES: Readonly<Record<ColumnType, string>> = {
  VARCHAR: 'string',
  BOOLEAN: 'boolean',
  INTEGER: 'int',
  BIGINT: 'bigint',
  DOUBLE: 'double',
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

/** The DDL of a table's columns, as DuckDB takes it. */
export const columnsDdl = (table: TableDefinition): string => table.columns.map((column) => `"${column.name}" ${column.type}`).join(', ');
