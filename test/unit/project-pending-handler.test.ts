import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { beforeEach, describe, expect, it, vi } from 'vitest';

const { consumePending } = vi.hoisted(() => ({ consumePending: vi.fn() }));
vi.mock('../../shared/pipeline/consumer', async (importOriginal) => ({ ...(await importOriginal<object>()), consumePending }));
const { handler } = await import('../../functions/workers/project-pending');
const { metrics } = await import('../../shared/config/metrics');

const record = (sequence: string, item: Record<string, unknown>): DynamoDBRecord => ({
  eventName: 'INSERT',
  dynamodb: { SequenceNumber: sequence, NewImage: marshall(item) as never },
});

describe('the stream consumer function', () => {
  beforeEach(() => consumePending.mockReset());

  it('hands the consumer the new images as plain items and reports no failure when all are done', async () => {
    consumePending.mockResolvedValue({ done: 2, retrying: [], parked: [], failed: [], projectedEvents: 0, maxLagMs: 0 });
    const result = await handler({ Records: [record('100', { PK: 'PIXEL#a#LOG', SK: '1' }), record('200', { PK: 'PIXEL#b#LOG', SK: '2' })] });
    expect(consumePending).toHaveBeenCalledWith([{ PK: 'PIXEL#a#LOG', SK: '1' }, { PK: 'PIXEL#b#LOG', SK: '2' }], expect.anything());
    expect(result).toEqual({ batchItemFailures: [] });
  });

  it('reports the earliest record whose failure could not be recorded, so Lambda retries from there', async () => {
    consumePending.mockImplementation(async (items: Array<Record<string, unknown>> = []) => ({
      done: 1,
      retrying: [],
      parked: [],
      failed: items.filter((item) => item.PK === 'PIXEL#b#LOG'),
      projectedEvents: 0,
      maxLagMs: 0,
    }));
    const result = await handler({
      Records: [record('300', { PK: 'PIXEL#a#LOG', SK: '1' }), record('1000', { PK: 'PIXEL#b#LOG', SK: '3' }), record('900', { PK: 'PIXEL#b#LOG', SK: '2' })],
    });
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: '900' }] });
  });

  it('succeeds for records whose failure is recorded on their item: the stream delivers them again', async () => {
    consumePending.mockImplementation(async (items: Array<Record<string, unknown>> = []) => ({ done: 1, retrying: items.slice(1, 2), parked: items.slice(2), failed: [], projectedEvents: 0, maxLagMs: 0 }));
    const result = await handler({
      Records: [record('300', { PK: 'PIXEL#a#LOG', SK: '1' }), record('400', { PK: 'PIXEL#b#LOG', SK: '2' }), record('500', { PK: 'PIXEL#b#LOG', SK: '3' })],
    });
    expect(result).toEqual({ batchItemFailures: [] });
  });

  it('reports the events it projected, how far behind it runs, what failed and what it parked, as metrics', async () => {
    const added = vi.spyOn(metrics, 'addMetric');
    consumePending.mockResolvedValue({
      done: 2,
      retrying: [{ PK: 'PIXEL#b#LOG', SK: '2' }],
      parked: [{ PK: 'PIXEL#b#LOG', SK: '3' }, { PK: 'PIXEL#b#LOG', SK: '4' }],
      failed: [{ PK: 'PIXEL#c#LOG', SK: '5' }],
      projectedEvents: 140,
      maxLagMs: 850,
    });
    await handler({ Records: [record('100', { PK: 'PIXEL#a#LOG', SK: '1' }), record('200', { PK: 'PIXEL#b#LOG', SK: '2' })] });
    expect(Object.fromEntries(added.mock.calls.map(([name, , value]) => [name, value]))).toEqual({ EventsProjected: 140, ProjectionLag: 850, ProjectionFailures: 4, EntriesParked: 2 });
    added.mockRestore();
  });
});
