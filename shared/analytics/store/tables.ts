/**
 * The tables of the analytics store: each a set of Parquet files per pixel and UTC date, with the
 * columns below (DuckDB types; Glue's in `GLUE_TYPES`). A table's rows are what was received, as
 * received: which of them are live (a repeated delivery, a superseded statement) is decided by
 * the table's read rule, which every reader applies (event-facts.ts for events). Compaction may
 * only drop or fold rows that rule would not count, which the table says below.
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
  /** The column whose UTC date partitions the table. */
  partitionedBy: string;
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
 * Every table of the store: what `npm run compact` and the sweep of replaced files go through
 * when no table is named. A table joins by being listed here.
 */
export const ANALYTICS_TABLES: readonly TableDefinition[] = [EVENTS_TABLE];

/** The registered table of that name, or undefined. */
export const analyticsTable = (name: string): TableDefinition | undefined => ANALYTICS_TABLES.find((table) => table.name === name);

/** The DDL of a table's columns, as DuckDB takes it. */
export const columnsDdl = (table: TableDefinition): string => table.columns.map((column) => `"${column.name}" ${column.type}`).join(', ');
