import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectLogEntries } from '../../shared/pipeline/project-log-entries';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { EVENT_SHARDS, eventPartitionKey, readEvents, shardOf } from '../../shared/store/event-repository';
import type { LogEntry } from '../../shared/store/log-repository';
import type { StoredEvent } from '../../shared/tracking/stored-event';
import { useFreshTable } from '../support/fresh-table';

/** The event-store part of the consumer: pages, markers and reads (the orders part is in pipeline-orders). */
beforeAll(async () => {
  await useFreshTable();
});

const event = (eventId: string, timestamp: string, eventIdSource: StoredEvent['eventIdSource'] = 'client'): StoredEvent => ({
  eventId,
  eventIdSource,
  name: 'page_view',
  standard: true,
  timestamp,
  receivedAt: timestamp,
});
let sequence = 0;
/** A log entry; entry ids sort in creation order, like ULIDs. */
const entry = (pixelId: string, events: StoredEvent[]): LogEntry => ({
  pixelId,
  entryId: `01JENTRY${String(sequence++).padStart(6, '0')}`,
  acceptedAt: '2026-03-12T00:00:00.000Z',
  events,
});
const project = (entries: LogEntry[]) => projectLogEntries(entries[0]!.pixelId, entries, { projectors: [] });
const ids = (events: StoredEvent[]) => events.map((stored) => stored.eventId);
const MARCH = [new Date('2026-03-01T00:00:00Z'), new Date('2026-04-01T00:00:00Z')] as const;

describe('readEvents', () => {
  beforeAll(async () => {
    await project([
      entry('px_read', [event('before', '2026-03-09T23:59:59.999Z'), event('midnight', '2026-03-10T00:00:00.000Z'), event('noon-b', '2026-03-10T12:00:00.000Z')]),
      entry('px_read', [event('noon-a', '2026-03-10T12:00:00.000Z'), event('late', '2026-03-11T23:59:59.999Z'), event('next-month', '2026-04-01T00:00:00.000Z', 'server')]),
    ]);
    await project([entry('px_read_other', [event('other-pixel', '2026-03-10T12:00:00.000Z')])]);
  });

  it('returns the events in [from, to), oldest first, ties by event id, across days, shards and entries', async () => {
    expect(ids(await readEvents('px_read', new Date('2026-03-09T00:00:00Z'), new Date('2026-04-02T00:00:00Z')))).toEqual([
      'before',
      'midnight',
      'noon-a',
      'noon-b',
      'late',
      'next-month',
    ]);
  });

  it('includes an event at `from` and excludes one at `to`', async () => {
    expect(ids(await readEvents('px_read', new Date('2026-03-10T00:00:00Z'), new Date('2026-03-10T12:00:00Z')))).toEqual(['midnight']);
    expect(ids(await readEvents('px_read', new Date('2026-03-10T12:00:00Z'), new Date('2026-03-10T12:00:00.001Z')))).toEqual(['noon-a', 'noon-b']);
  });

  it('returns nothing for an empty or inverted range, and never another pixel’s events', async () => {
    expect(await readEvents('px_read', new Date('2026-03-10T12:00:00Z'), new Date('2026-03-10T12:00:00Z'))).toEqual([]);
    expect(await readEvents('px_read', new Date('2026-03-11T00:00:00Z'), new Date('2026-03-10T00:00:00Z'))).toEqual([]);
    expect(ids(await readEvents('px_read_other', ...MARCH))).toEqual(['other-pixel']);
  });

  it('packs an entry’s events of one UTC day into one page in that day’s partition', async () => {
    const entryOfDay = entry('px_pages', [event('p1', '2026-03-10T01:00:00.000Z'), event('p2', '2026-03-10T02:00:00.000Z'), event('p3', '2026-03-11T02:00:00.000Z')]);
    await project([entryOfDay]);
    const { Items = [] } = await documentClient.send(
      new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': eventPartitionKey('px_pages', '2026-03-10', shardOf(entryOfDay.entryId)) } }),
    );
    expect(Items.map((item) => [item.SK, item.count])).toEqual([[entryOfDay.entryId, 2]]);
    expect(shardOf(entryOfDay.entryId)).toBeLessThan(EVENT_SHARDS);
  });

  it('spreads pages over the shards', () => {
    expect(new Set(Array.from({ length: 200 }, (_, i) => shardOf(`entry-${i}`))).size).toBe(EVENT_SHARDS);
  });
});

describe('one stored delivery per client eventId: the first in the log', () => {
  it('keeps a redelivered id as first delivered: its time, place and content', async () => {
    const first = entry('px_redeliver', [event('r', '2026-03-10T08:00:00.000Z')]);
    const second = entry('px_redeliver', [{ ...event('r', '2026-03-11T09:00:00.000Z'), name: 'login' }]);
    await project([first]);
    await project([second]);
    expect(await readEvents('px_redeliver', ...MARCH)).toEqual([event('r', '2026-03-10T08:00:00.000Z')]);
  });

  it('gives the same result when the later delivery is projected first, even on another day', async () => {
    const first = entry('px_late_first', [event('r', '2026-03-10T08:00:00.000Z')]);
    const second = entry('px_late_first', [{ ...event('r', '2026-03-11T09:00:00.000Z'), name: 'login' }]);
    await project([second]);
    expect(ids(await readEvents('px_late_first', new Date('2026-03-11T00:00:00Z'), new Date('2026-03-12T00:00:00Z')))).toEqual(['r']);
    await project([first]);
    expect(await readEvents('px_late_first', ...MARCH)).toEqual([event('r', '2026-03-10T08:00:00.000Z')]);
    expect(await readEvents('px_late_first', new Date('2026-03-11T00:00:00Z'), new Date('2026-03-12T00:00:00Z'))).toEqual([]);
  });

  it('keeps the first of a repeated id within one entry, and the first entry of one batch', async () => {
    const a = entry('px_within', [event('w', '2026-03-10T08:00:00.000Z'), { ...event('w', '2026-03-10T09:00:00.000Z'), name: 'login' }]);
    const b = entry('px_within', [{ ...event('w', '2026-03-10T10:00:00.000Z'), name: 'sign_up' }, event('x', '2026-03-10T10:00:00.000Z')]);
    await project([b, a]);
    expect(await readEvents('px_within', ...MARCH)).toEqual([event('w', '2026-03-10T08:00:00.000Z'), event('x', '2026-03-10T10:00:00.000Z')]);
  });

  it('changes nothing when an entry is projected again', async () => {
    const a = entry('px_again', [event('g1', '2026-03-10T08:00:00.000Z'), event('g2', '2026-03-10T09:00:00.000Z', 'server')]);
    await project([a]);
    const before = await readEvents('px_again', ...MARCH);
    await project([a]);
    await project([a, entry('px_again', [event('g1', '2026-03-10T07:00:00.000Z')])]);
    expect(await readEvents('px_again', ...MARCH)).toEqual(before);
  });
});
