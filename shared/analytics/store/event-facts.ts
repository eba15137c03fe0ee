import type { QueryEvent } from '../query-data';
import type { InstantRange } from '../../time/date-range';
import { rowObjects, withDuckDB } from './duckdb';
import { registerTableView, utcDateSpan } from './table-reader';
import { EVENTS_TABLE } from './tables';

/**
 * How far apart in event time two deliveries of one `event_id` may be and still be one event. A
 * query reads this many days more on each side of its range, which holds every delivery that can
 * make one in the range a repeat: its answer does not depend on where the range begins or ends.
 */
export const DEDUP_WINDOW_DAYS = 7;

/**
 * The read rule of the events table, the one definition every reader of events and compaction
 * use: a delivery is a repeat when an earlier delivery in the log (a lesser `entry_id`) of the same
 * `event_id` lies within the dedup window of it; the others are the events. The same entry stored
 * twice (a projection re-run in a larger batch) is one delivery.
 */
export const LIVE_EVENTS_SQL = (deliveries: string) => `
  WITH delivered AS (SELECT DISTINCT ON (event_id, entry_id) * FROM ${deliveries})
  SELECT later.* FROM delivered AS later
  ANTI JOIN delivered AS earlier
    ON earlier.event_id = later.event_id
   AND earlier.entry_id < later.entry_id
   AND earlier.ts BETWEEN later.ts - INTERVAL ${DEDUP_WINDOW_DAYS} DAY AND later.ts + INTERVAL ${DEDUP_WINDOW_DAYS} DAY`;

/** The identity keys of an event, as identity-components.ts `identityKeys` writes them. */
const IDENTITIES_SQL = `list_concat(
  list_transform(user_ids, id -> 'u:' || id),
  list_transform(email_hashes, hash -> 'e:' || hash),
  list_transform(phone_hashes, hash -> 'p:' || hash),
  CASE WHEN fbp IS NULL THEN []::VARCHAR[] ELSE ['f:' || fbp] END)`;

async function readLiveEvents<T>(pixelId: string, range: InstantRange, select: string, rowOf: (row: Record<string, unknown>) => T): Promise<T[]> {
  return withDuckDB(async (connection) => {
    await registerTableView(connection, EVENTS_TABLE, pixelId, utcDateSpan(range, DEDUP_WINDOW_DAYS), 'deliveries');
    const result = await connection.runAndReadAll(
      `WITH live AS (${LIVE_EVENTS_SQL('deliveries')})
       ${select.replace('$FROM', 'FROM live WHERE ts >= make_timestamp($start * 1000) AND ts < make_timestamp($end * 1000)')}`,
      { start: range.start, end: range.end },
    );
    return rowObjects(result).map(rowOf);
  });
}

/** Every event of the range, with its identities (the people measures read them). */
export function readEvents(pixelId: string, range: InstantRange): Promise<QueryEvent[]> {
  return readLiveEvents(
    pixelId,
    range,
    `SELECT event_id, epoch_ms(ts) AS at, name, utm_source, utm_medium, utm_campaign, ${IDENTITIES_SQL} AS identities $FROM`,
    (row) => ({
      eventId: row.event_id as string,
      at: Number(row.at),
      name: row.name as string,
      utmSource: (row.utm_source as string | null) ?? null,
      utmMedium: (row.utm_medium as string | null) ?? null,
      utmCampaign: (row.utm_campaign as string | null) ?? null,
      identities: row.identities as string[],
    }),
  );
}

/** Event counts of the range by UTC hour and name, and by UTM values with `byUtm` (without identities). */
export function readEventCounts(pixelId: string, range: InstantRange, byUtm: boolean): Promise<QueryEvent[]> {
  const utm = byUtm ? 'utm_source, utm_medium, utm_campaign' : 'NULL AS utm_source, NULL AS utm_medium, NULL AS utm_campaign';
  return readLiveEvents(
    pixelId,
    range,
    `SELECT epoch_ms(date_trunc('hour', ts)) AS at, name, ${utm}, count(*) AS count $FROM GROUP BY ALL`,
    (row) => ({
      eventId: `${Number(row.at)}#${row.name as string}#${row.utm_source as string}#${row.utm_medium as string}#${row.utm_campaign as string}`,
      at: Number(row.at),
      name: row.name as string,
      utmSource: (row.utm_source as string | null) ?? null,
      utmMedium: (row.utm_medium as string | null) ?? null,
      utmCampaign: (row.utm_campaign as string | null) ?? null,
      identities: [],
      count: Number(row.count),
    }),
  );
}
