import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, startEmbeddedDynamo } from '../../lib/local/dynamodb';
import { startDynamoDbLocal } from '../support/dynamodb-local';

/**
 * TransactWriteItems on the local store (lib/local/dynalite-transactions.ts) answers as Amazon's
 * DynamoDB Local does: every scenario runs on both, and what the SDK gives back, and what is stored
 * after, must be the same.
 */
const TABLE = 'transactions';
type Client = DynamoDBDocumentClient;

interface Store {
  client: Client;
  endpoint: string;
  close(): Promise<void>;
}

async function connect(endpoint: string): Promise<Client> {
  await ensureTable(endpoint, TABLE);
  return DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 }));
}

/** What a call came to, as the SDK reports it: the error's name and cancellation reasons, or success. */
async function outcome(call: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await call;
    return { ok: true };
  } catch (error) {
    const { name, CancellationReasons } = error as { name: string; CancellationReasons?: unknown };
    return { error: name, ...(CancellationReasons ? { reasons: CancellationReasons } : {}) };
  }
}

/** Stores an item outside any transaction, as a scenario's starting state. */
const seed = (client: Client, PK: string, v: number) => client.send(new PutCommand({ TableName: TABLE, Item: { PK, SK: 'S', v } }));
type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;
/** One TransactWriteItems call, as `outcome` reports it. */
const transact = (client: Client, TransactItems: TransactItems, ClientRequestToken?: string) =>
  outcome(client.send(new TransactWriteCommand({ TransactItems, ...(ClientRequestToken ? { ClientRequestToken } : {}) })));
const get = async (client: Client, PK: string) => (await client.send(new GetCommand({ TableName: TABLE, Key: { PK, SK: 'S' }, ConsistentRead: true }))).Item ?? null;
const put = (PK: string, extra: Record<string, unknown> = {}, condition?: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown>; ReturnValuesOnConditionCheckFailure?: 'ALL_OLD' }) => ({
  Put: { TableName: TABLE, Item: { PK, SK: 'S', ...extra }, ...condition },
});

/** Each scenario on a fresh prefix of keys; returns what a caller could observe. */
const scenarios: Record<string, (client: Client, p: string) => Promise<unknown>> = {
  'conditions that all hold write every item': async (client, p) => {
    await seed(client, `${p}a`, 1);
    const result = await transact(client, [
      put(`${p}a`, { v: 2 }, { ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': 1 } }),
      put(`${p}b`, { v: 1 }, { ConditionExpression: 'attribute_not_exists(PK)' }),
    ]);
    return { result, a: await get(client, `${p}a`), b: await get(client, `${p}b`) };
  },
  'one failed condition writes nothing and names its action': async (client, p) => {
    await seed(client, `${p}a`, 1);
    const result = await transact(client, [
      put(`${p}b`, { v: 1 }, { ConditionExpression: 'attribute_not_exists(PK)' }),
      put(`${p}a`, { v: 3 }, { ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': 2 } }),
      put(`${p}c`, { v: 1 }),
    ]);
    return { result, a: await get(client, `${p}a`), b: await get(client, `${p}b`), c: await get(client, `${p}c`) };
  },
  'a failed condition hands back the item when asked': async (client, p) => {
    await seed(client, `${p}a`, 7);
    return transact(client, [put(`${p}a`, { v: 8 }, { ConditionExpression: 'attribute_not_exists(PK)', ReturnValuesOnConditionCheckFailure: 'ALL_OLD' })]);
  },
  'a delete and a condition check': async (client, p) => {
    await seed(client, `${p}a`, 1);
    await seed(client, `${p}b`, 5);
    const failed = await transact(client, [
      { Delete: { TableName: TABLE, Key: { PK: `${p}a`, SK: 'S' } } },
      { ConditionCheck: { TableName: TABLE, Key: { PK: `${p}b`, SK: 'S' }, ConditionExpression: 'v > :v', ExpressionAttributeValues: { ':v': 5 } } },
    ]);
    const afterFailed = await get(client, `${p}a`);
    const held = await transact(client, [
      { Delete: { TableName: TABLE, Key: { PK: `${p}a`, SK: 'S' }, ConditionExpression: 'attribute_exists(PK)' } },
      { ConditionCheck: { TableName: TABLE, Key: { PK: `${p}b`, SK: 'S' }, ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': 5 } } },
    ]);
    return { failed, afterFailed, held, a: await get(client, `${p}a`), b: await get(client, `${p}b`) };
  },
  'two actions on one item are refused': async (client, p) =>
    transact(client, [put(`${p}a`, { v: 1 }), put(`${p}a`, { v: 2 })]),
  'index entries follow the writes': async (client, p) => {
    await transact(client, [put(`${p}a`, { GSI1PK: `${p}index`, GSI1SK: '1' }), put(`${p}b`, { GSI1PK: `${p}index`, GSI1SK: '2' })]);
    await transact(client, [{ Delete: { TableName: TABLE, Key: { PK: `${p}a`, SK: 'S' } } }, put(`${p}b`, { GSI1PK: `${p}index`, GSI1SK: '3' })]);
    const { Items } = await client.send(new QueryCommand({ TableName: TABLE, IndexName: 'GSI1', KeyConditionExpression: 'GSI1PK = :pk', ExpressionAttributeValues: { ':pk': `${p}index` } }));
    return Items;
  },
  'a request sent again with its token is not written again': async (client, p) => {
    const token = `token-${p.length}-${p.slice(0, 8).replace(/\W/g, '')}`;
    const items = [put(`${p}a`, { v: 1 }, { ConditionExpression: 'attribute_not_exists(PK)' })];
    const first = await transact(client, items, token);
    const again = await transact(client, items, token);
    const changed = await transact(client, [put(`${p}b`, { v: 1 })], token);
    return { first, again, changed, b: await get(client, `${p}b`) };
  },
};

describe('TransactWriteItems on the local store', () => {
  const stores: Record<'local store' | 'DynamoDB Local', Store> = {} as never;

  beforeAll(async () => {
    const embedded = await startEmbeddedDynamo();
    const amazon = await startDynamoDbLocal();
    stores['local store'] = { client: await connect(embedded.endpoint), endpoint: embedded.endpoint, close: () => embedded.close() };
    stores['DynamoDB Local'] = { client: await connect(amazon.endpoint), endpoint: amazon.endpoint, close: () => amazon.close() };
  }, 90_000);

  afterAll(async () => {
    for (const store of Object.values(stores)) {
      store.client.destroy();
      await store.close();
    }
  });

  it.each(Object.keys(scenarios))('%s, as DynamoDB Local does', async (name) => {
    const prefix = `${name.replace(/\W+/g, '-')}#`;
    const ours = await scenarios[name]!(stores['local store'].client, prefix);
    const theirs = await scenarios[name]!(stores['DynamoDB Local'].client, prefix);
    expect(ours).toEqual(theirs);
  });

  it('answers a malformed request with a 400 and goes on serving', async () => {
    const { client, endpoint } = stores['local store'];
    for (const body of ['not json', 'null', '{"TransactItems":[null]}', '{"TransactItems":[{"Put":5}]}', '{"TransactItems":[{"Put":{"TableName":"transactions"}}]}', '{"TransactItems":[]}']) {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'DynamoDB_20120810.TransactWriteItems' },
        body,
      });
      expect(response.status, body).toBe(400);
    }
    await client.send(new TransactWriteCommand({ TransactItems: [put('after-malformed', { v: 1 })] }));
    expect(await get(client, 'after-malformed')).toEqual({ PK: 'after-malformed', SK: 'S', v: 1 });
  });

  it('keeps every transaction whole under concurrent conflicting ones', async () => {
    const { client } = stores['local store'];
    // Each transaction moves a pair of items from version n to n+1, both or neither: whatever the
    // interleaving, the two items always hold the same version, and it counts the ones that won.
    await client.send(new TransactWriteCommand({ TransactItems: [put('race#a', { v: 0 }), put('race#b', { v: 0 })] }));
    const attempts = Array.from({ length: 40 }, async (_, i) => {
      const from = i % 5;
      const moved = await transact(
        client,
        (i % 2 === 0 ? ['race#a', 'race#b'] : ['race#b', 'race#a']).map((PK) => put(PK, { v: from + 1 }, { ConditionExpression: 'v = :v', ExpressionAttributeValues: { ':v': from } })),
      );
      return moved.ok === true;
    });
    const won = (await Promise.all(attempts)).filter(Boolean).length;
    const [a, b] = [await get(client, 'race#a'), await get(client, 'race#b')];
    expect(a?.v).toBe(b?.v);
    expect(a?.v).toBe(won);
  });
});
