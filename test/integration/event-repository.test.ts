import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { EVENT_SHARDS, eventPartitionKey, readEvents, shardOf, storeEvents } from '../../shared/store/event-repository';
import type { StoredEvent } from '../../shared/tracking/stored-event';
import { useFreshTable } from '../support/fresh-table';

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

const ids = (events: StoredEvent[]) => events.map((stored) => stored.eventId);

describe('readEvents', () => {
  const stored = [
    event('before', '2026-03-09T23:59:59.999Z'),
    event('midnight', '2026-03-10T00:00:00.000Z'),
    event('noon-b', '2026-03-10T12:00:00.000Z'),
    event('noon-a', '2026-03-10T12:00:00.000Z'),
    event('late', '2026-03-11T23:59:59.999Z'),
    event('next-month', '2026-04-01T00:00:00.000Z'),
  ];

  beforeAll(async () => {
    await storeEvents('px_read', stored);
    await storeEvents('px_read_other', [event('other-pixel', '2026-03-10T12:00:00.000Z')]);
  });

  it('returns the events in [from, to), oldest first, ties by event id, across days and shards', async () => {
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
    expect(ids(await readEvents('px_read_other', new Date('2026-03-01T00:00:00Z'), new Date('2026-04-01T00:00:00Z')))).toEqual(['other-pixel']);
  });

  it('keeps each event in its pixel’s partition for its UTC day and shard', async () => {
    const { Items = [] } = await documentClient.send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': eventPartitionKey('px_read', '2026-03-10', shardOf('midnight')) },
      }),
    );
    expect(Items.map((item) => item.SK)).toContain('2026-03-10T00:00:00.000Z#midnight');
    expect(shardOf('midnight')).toBeLessThan(EVENT_SHARDS);
  });

  it('keeps a redelivered id as first stored: its time, place and content', async () => {
    await storeEvents('px_redeliver', [event('r', '2026-03-10T08:00:00.000Z')]);
    const [again] = await storeEvents('px_redeliver', [{ ...event('r', '2026-03-10T09:00:00.000Z'), name: 'login', standard: true }]);
    expect(again).toEqual(event('r', '2026-03-10T08:00:00.000Z'));
    expect(await readEvents('px_redeliver', new Date('2026-03-10T00:00:00Z'), new Date('2026-03-11T00:00:00Z'))).toEqual([event('r', '2026-03-10T08:00:00.000Z')]);
  });

  it('spreads events over the shards', () => {
    const shards = new Set(Array.from({ length: 200 }, (_, i) => shardOf(`event-${i}`)));
    expect(shards.size).toBe(EVENT_SHARDS);
  });
});
