import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { AbstractIterator, AbstractKeyIterator, AbstractValueIterator } from 'abstract-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/local/dynamodb';

/**
 * The local store must not keep a store iterator open per Query or Scan: each open LevelDB
 * iterator holds a snapshot with its memtables and table files, so the local server's memory
 * grew without bound under load (lib/local/dynalite-iterators.ts).
 */
describe.each([
  ['on disk (LevelDB)', true],
  ['in memory', false],
])('the local store %s', (_label, onDisk) => {
  const table = 'iterators';
  let dataDir: string | undefined;
  let dynamo: EmbeddedDynamo;
  let client: DynamoDBDocumentClient;
  let opened = 0;
  let closed = 0;
  const restore: Array<() => void> = [];

  beforeAll(async () => {
    dataDir = onDisk ? mkdtempSync(join(tmpdir(), 'iterators-')) : undefined;
    dynamo = await startEmbeddedDynamo({ path: dataDir });
    await ensureTable(dynamo.endpoint, table);
    client = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } }));
    for (let i = 0; i < 30; i++) await client.send(new PutCommand({ TableName: table, Item: { PK: 'P', SK: `S${String(i).padStart(2, '0')}`, n: i } }));
    // Counted from here on: every iterator the store opens, and every close of one.
    for (const iterator of [AbstractIterator, AbstractKeyIterator, AbstractValueIterator]) {
      const prototype = iterator.prototype as unknown as { next: (...args: unknown[]) => unknown; close: () => Promise<void> };
      const { next, close } = prototype;
      const counted = new WeakSet<object>();
      prototype.next = function (this: object, ...args: unknown[]) {
        if (!counted.has(this)) {
          counted.add(this);
          opened++;
        }
        return next.apply(this, args);
      };
      prototype.close = function (this: object) {
        if (counted.has(this)) {
          counted.delete(this);
          closed++;
        }
        return close.call(this);
      };
      restore.push(() => Object.assign(prototype, { next, close }));
    }
  });

  afterAll(async () => {
    for (const undo of restore) undo();
    await dynamo?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('closes the iterator of every Query and Scan, whether it reads to the end or stops at its Limit', async () => {
    const before = { opened, closed };
    for (let i = 0; i < 20; i++) {
      const page = await client.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'P' }, Limit: 5 }));
      expect(page.Items).toHaveLength(5);
      const all = await client.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'P' } }));
      expect(all.Items).toHaveLength(30);
      await client.send(new ScanCommand({ TableName: table, Limit: 3 }));
    }
    // Closing runs after the answer is sent: give it a moment.
    await expect.poll(() => closed - before.closed, { timeout: 5_000 }).toBe(opened - before.opened);
    expect(opened - before.opened).toBeGreaterThanOrEqual(60);
  });
});
