import { createHash } from 'node:crypto';
import type { ProjectionBatch, Projector } from '../../pipeline/projector';
import { eventDate, eventRow } from './event-rows';
import { EVENTS_TABLE } from './tables';
import { appendRows } from './table-writer';

/**
 * Writes a batch's event deliveries to the events table: every delivery of every entry (the
 * stored ones and those that lost to an earlier delivery of their eventId), one file per UTC date,
 * named by the entries it holds. A re-run of the same entries writes the same files and adds
 * nothing; a re-run in a larger batch writes a new file holding the same deliveries again, which
 * the table's read rule counts once (event-facts.ts).
 */
export const eventsTableProjector: Projector = {
  name: 'events-table',
  project: writeDeliveries,
  seedInitial: writeDeliveries,
};

async function writeDeliveries(batch: ProjectionBatch): Promise<void> {
  if (batch.entries.length === 0) return;
  const rowsByDate = new Map<string, unknown[][]>();
  for (const entry of batch.entries) {
    for (const event of [...entry.events, ...(entry.lost ?? [])]) {
      const date = eventDate(event);
      const rows = rowsByDate.get(date);
      if (rows) rows.push(eventRow(entry.entryId, event));
      else rowsByDate.set(date, [eventRow(entry.entryId, event)]);
    }
  }
  // Named by every entry it holds: the same entries always make the same name, other entries another.
  const ids = batch.entries.map((entry) => entry.entryId).sort();
  const digest = createHash('sha256').update(ids.join(',')).digest('hex').slice(0, 20);
  await appendRows(EVENTS_TABLE, batch.pixelId, `${ids[0]}-${digest}`, rowsByDate);
}
