import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { AbstractLevel } from 'abstract-level';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, startEmbeddedDynamo, type EmbeddedDynamo } from '../../lib/local/dynamodb';

/**
 * The local store keeps each table's description between writes of it instead of reading and
 * decoding it from the store on every request (lib/local/dynalite-table-cache.ts); a table that
 * is changed, deleted or created again is seen as it now is by the next request.
 */
describe.each([
  ['on disk (LevelDB)', true],
  ['in memory', false],
])('the local store %s', (_label, onDisk) => {
  const table = 'descriptions';
  let dataDir: string | undefined;
  let dynamo: EmbeddedDynamo;
  let raw: DynamoDBClient;
  let client: DynamoDBDocumentClient;
  let descriptionReads = 0;
  let restore = () => undefined as void;

  beforeAll(async () => {
    // Counted before the store is made, so the store's own reads go through the count.
    const prototype = AbstractLevel.prototype as unknown as { get: (key: unknown, ...rest: unknown[]) => unknown };
    const { get } = prototype;
    prototype.get = function (this: object, key: unknown, ...rest: unknown[]) {
      if (typeof key === 'string' && key.startsWith('table~')) descriptionReads++;
      return get.call(this, key, ...rest);
    };
    restore = () => void (prototype.get = get);
    dataDir = onDisk ? mkdtempSync(join(tmpdir(), 'descriptions-')) : undefined;
    dynamo = await startEmbeddedDynamo({ path: dataDir });
    await ensureTable(dynamo.endpoint, table);
    raw = new DynamoDBClient({ endpoint: dynamo.endpoint, region: 'local', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    client = DynamoDBDocumentClient.from(raw);
  });

  afterAll(async () => {
    restore();
    client?.destroy();
    await dynamo?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads a table description from the store once between writes of it, not once a request or a batch item', async () => {
    await client.send(new PutCommand({ TableName: table, Item: { PK: 'warm', SK: 'up' } }));
    const before = descriptionReads;
    for (let i = 0; i < 40; i++) await client.send(new PutCommand({ TableName: table, Item: { PK: 'P', SK: `S${String(i).padStart(2, '0')}` } }));
    await client.send(new BatchWriteCommand({ RequestItems: { [table]: Array.from({ length: 25 }, (_, i) => ({ PutRequest: { Item: { PK: 'B', SK: `S${i}` } } })) } }));
    const { Items } = await client.send(new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': 'P' } }));
    expect(Items).toHaveLength(40);
    expect(descriptionReads - before).toBe(0);
  });

  it('sees a table changed, deleted or created again with another key at the next request', async () => {
    const changing = 'changing';
    await raw.send(new CreateTableCommand({ TableName: changing, AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }));
    await expect.poll(async () => (await raw.send(new DescribeTableCommand({ TableName: changing }))).Table?.TableStatus, { timeout: 5_000 }).toBe('ACTIVE');
    await client.send(new PutCommand({ TableName: changing, Item: { PK: 'old-key' } }));
    await raw.send(new UpdateTableCommand({ TableName: changing, BillingMode: 'PROVISIONED', ProvisionedThroughput: { ReadCapacityUnits: 7, WriteCapacityUnits: 3 } }));
    await expect
      .poll(async () => (await raw.send(new DescribeTableCommand({ TableName: changing }))).Table, { timeout: 5_000 })
      .toMatchObject({ TableStatus: 'ACTIVE', BillingModeSummary: { BillingMode: 'PROVISIONED' }, ProvisionedThroughput: { ReadCapacityUnits: 7, WriteCapacityUnits: 3 } });

    await raw.send(new DeleteTableCommand({ TableName: changing }));
    await expect.poll(() => client.send(new GetCommand({ TableName: changing, Key: { PK: 'old-key' } })).then(() => 'found', (error: unknown) => error), { timeout: 5_000 }).toBeInstanceOf(ResourceNotFoundException);

    await raw.send(new CreateTableCommand({ TableName: changing, AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }], KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }], BillingMode: 'PAY_PER_REQUEST' }));
    await expect.poll(async () => (await raw.send(new DescribeTableCommand({ TableName: changing }))).Table?.TableStatus, { timeout: 5_000 }).toBe('ACTIVE');
    await client.send(new PutCommand({ TableName: changing, Item: { id: 'new-key' } }));
    expect((await client.send(new GetCommand({ TableName: changing, Key: { id: 'new-key' } }))).Item).toEqual({ id: 'new-key' });
    await expect(client.send(new PutCommand({ TableName: changing, Item: { PK: 'old-key' } }))).rejects.toThrow(/key/i);
  });
});
