import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { putEachUnlessRefused, type ConditionalPut } from '../../shared/store/conditional-puts';
import { bulkDocumentClient, documentClient, tableName } from '../../shared/store/dynamo-client';
import { useFreshTable } from '../support/fresh-table';

/** A put that takes the item unless a newer version of it is stored. */
const newerPut = (PK: string, v: number): ConditionalPut => ({ Item: { PK, SK: 'S', v }, ConditionExpression: 'attribute_not_exists(PK) OR v <= :v', ExpressionAttributeValues: { ':v': v } });
const stored = async (PK: string) => (await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK, SK: 'S' }, ConsistentRead: true }))).Item?.v as number | undefined;
const seed = (PK: string, v: number) => documentClient.send(new PutCommand({ TableName: tableName(), Item: { PK, SK: 'S', v } }));
const cancelled = (codes: string[]) => Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException', CancellationReasons: codes.map((Code) => ({ Code })) });

describe('putEachUnlessRefused', () => {
  beforeAll(async () => {
    await useFreshTable();
  });
  afterEach(() => vi.restoreAllMocks());

  it('answers and stores for every put what it would have alone, however many and whichever are refused (fast-check)', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ before: fc.option(fc.nat(3), { nil: undefined }), v: fc.nat(3) }), { minLength: 1, maxLength: 230 }), async (specs) => {
        const prefix = `prop${run++}#`;
        await Promise.all(specs.flatMap(({ before }, i) => (before === undefined ? [] : [seed(`${prefix}${i}`, before)])));
        const written = await putEachUnlessRefused(specs.map(({ v }, i) => newerPut(`${prefix}${i}`, v)));
        const expected = specs.map(({ before, v }) => before === undefined || before <= v);
        expect(written).toEqual(expected);
        expect(await Promise.all(specs.map((_, i) => stored(`${prefix}${i}`)))).toEqual(specs.map(({ before, v }, i) => (expected[i] ? v : before)));
      }),
      { numRuns: 12 },
    );
  }, 120_000);

  it('sends them many to a call, not one each', async () => {
    const send = vi.spyOn(bulkDocumentClient, 'send');
    const single = vi.spyOn(documentClient, 'send');
    const written = await putEachUnlessRefused(Array.from({ length: 250 }, (_, i) => newerPut(`calls#${i}`, 1)));
    expect(written.every(Boolean)).toBe(true);
    expect(send.mock.calls.filter(([command]) => command instanceof TransactWriteCommand)).toHaveLength(3);
    expect(single).not.toHaveBeenCalled();
  });

  it('sends again the puts a cancelled call took down with a refused one or lost to a conflict', async () => {
    await seed('retry#refused', 5);
    const send = bulkDocumentClient.send.bind(bulkDocumentClient);
    let calls = 0;
    vi.spyOn(bulkDocumentClient, 'send').mockImplementation((async (command: unknown) => {
      // The first call is cancelled as DynamoDB would be by a concurrent writer of the second item.
      if (command instanceof TransactWriteCommand && calls++ === 0) throw cancelled(['None', 'TransactionConflict', 'ConditionalCheckFailed', 'None']);
      return send(command as never);
    }) as never);
    const written = await putEachUnlessRefused([newerPut('retry#a', 1), newerPut('retry#b', 1), newerPut('retry#refused', 1), newerPut('retry#c', 1)]);
    expect(written).toEqual([true, true, false, true]);
    expect(await Promise.all(['retry#a', 'retry#b', 'retry#refused', 'retry#c'].map(stored))).toEqual([1, 1, 5, 1]);
  });

  it('learns each outcome alone from a store that cancels without naming the refused put', async () => {
    await seed('alone#refused', 5);
    const send = bulkDocumentClient.send.bind(bulkDocumentClient);
    vi.spyOn(bulkDocumentClient, 'send').mockImplementation((async (command: unknown) => {
      if (command instanceof TransactWriteCommand) throw Object.assign(new Error('Transaction cancelled'), { name: 'TransactionCanceledException' });
      return send(command as never);
    }) as never);
    expect(await putEachUnlessRefused([newerPut('alone#a', 2), newerPut('alone#refused', 2)])).toEqual([true, false]);
    expect(await Promise.all(['alone#a', 'alone#refused'].map(stored))).toEqual([2, 5]);
  });

  it('throws what fails a call otherwise, and a put that would have failed alone too', async () => {
    vi.spyOn(bulkDocumentClient, 'send').mockRejectedValueOnce(Object.assign(new Error('injected'), { name: 'InternalServerError' }));
    await expect(putEachUnlessRefused([newerPut('fail#a', 1), newerPut('fail#b', 1)])).rejects.toThrow('injected');
    vi.spyOn(bulkDocumentClient, 'send').mockRejectedValueOnce(cancelled(['None', 'ValidationError']));
    await expect(putEachUnlessRefused([newerPut('fail#a', 1), newerPut('fail#c', 1)])).rejects.toMatchObject({ name: 'ValidationError' });
  });

  it('refuses two puts of one item, which a transaction may not hold', async () => {
    await expect(putEachUnlessRefused([newerPut('twice', 1), newerPut('twice', 2)])).rejects.toThrow(/one put an item/);
  });
});
