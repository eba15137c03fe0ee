import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as getAccount } from '../../functions/accounts/get-account';
import { handler as updateAccount } from '../../functions/accounts/update-account';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { apiEvent, invoke } from '../support/api-event';
import { recordedEvents, useFreshTable } from '../support/fresh-table';
import { drainPipeline } from '../support/pipeline';

const PATH = '/accounts/api/account';

beforeAll(async () => {
  await useFreshTable();
});

async function clientFor(pixelId: string, scopes = ['account:write']) {
  const { apiKey, record } = await mintApiKey({ pixelId, scopes });
  const headers = { 'x-api-key': apiKey, 'x-pixel-id': pixelId };
  return {
    apiKeyPk: record.apiKeyPk,
    patch: (body: unknown, extra: { now?: Date; idempotencyKey?: string } = {}) =>
      invoke(updateAccount, apiEvent({ method: 'PATCH', path: PATH, headers: { ...headers, ...(extra.idempotencyKey ? { 'idempotency-key': extra.idempotencyKey } : {}) }, body, now: extra.now })),
    get: () => invoke(getAccount, apiEvent({ method: 'GET', path: PATH, headers })),
  };
}

const head = async (pixelId: string) =>
  (await documentClient.send(new GetCommand({ TableName: tableName(), Key: { PK: `PIXEL#${pixelId}`, SK: 'ACCOUNT' }, ConsistentRead: true }))).Item;

describe('account handlers (real SDK, dynalite, local EventBridge)', () => {
  it('answers the defaults before anything is set', async () => {
    const client = await clientFor('px_account_new', ['account:read']);
    const response = await client.get();
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ account: { name: null, timezone: 'UTC', currency: 'USD' } });
  });

  it('changes the given members, keeps the others, and publishes accountUpdated of kind account', async () => {
    const client = await clientFor('px_account');
    const requestTime = new Date('2026-03-05T08:00:00.000Z');

    const first = await client.patch({ name: 'Main shop', timezone: 'asia/kolkata' }, { now: requestTime });
    const second = await client.patch({ currency: 'EUR' }, { now: requestTime });

    expect(first.status).toBe(200);
    // The zone is stored by the runtime's canonical name, as queries read it.
    expect(first.body).toEqual({ account: { name: 'Main shop', timezone: 'Asia/Calcutta', currency: 'USD' } });
    expect(second.body).toEqual({ account: { name: 'Main shop', timezone: 'Asia/Calcutta', currency: 'EUR' } });
    expect((await client.get()).body).toEqual(second.body);
    await drainPipeline();
    expect(recordedEvents('px_account').map((event) => event.detail)).toEqual([1, 2].map((version) => ({
      eventId: `px_account:account:${version}`,
      pixelId: 'px_account',
      actor: `cli:${client.apiKeyPk}`,
      change: { kind: 'account' },
      occurredAt: requestTime.toISOString(),
    })));
    // Published events leave the outbox, and the head the pending index.
    expect(await head('px_account')).not.toHaveProperty('outbox');
    expect(await head('px_account')).not.toHaveProperty('GSI2PK');
  });

  it('writes nothing and publishes nothing for a PATCH that changes nothing', async () => {
    const client = await clientFor('px_account_same');
    await client.patch({ currency: 'EUR' });
    const versionBefore = (await head('px_account_same'))?.version;
    const again = await client.patch({ currency: 'EUR' });
    expect(again.status).toBe(200);
    expect((await head('px_account_same'))?.version).toBe(versionBefore);
    await drainPipeline();
    expect(recordedEvents('px_account_same')).toHaveLength(1);
  });

  it('answers a retry with the same Idempotency-Key with the first response, storing nothing again', async () => {
    const client = await clientFor('px_account_retry');
    const first = await client.patch({ name: 'First' }, { idempotencyKey: 'k-1' });
    await client.patch({ name: 'Second' });
    const retry = await client.patch({ name: 'First' }, { idempotencyKey: 'k-1' });
    expect(retry.body).toEqual(first.body);
    expect((await client.get()).body).toEqual({ account: { name: 'Second', timezone: 'UTC', currency: 'USD' } });
  });

  it('rejects unknown keys, an empty body and invalid values with 400, storing nothing', async () => {
    const client = await clientFor('px_account_bad');
    for (const body of [{}, { name: 'Ok', plan: 'pro' }, { timezone: 'Mars/Phobos' }, { timezone: '+01:00' }, { currency: 'eur' }, { name: '' }, { name: 'a\u200bb' }, { name: 'x'.repeat(101) }]) {
      const response = await client.patch(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body).toHaveProperty('errors');
    }
    expect(await head('px_account_bad')).toBeUndefined();
  });

  it('needs account:write to PATCH and account:read (or write) to GET', async () => {
    const reader = await clientFor('px_account_scopes', ['account:read']);
    const other = await clientFor('px_account_scopes', ['analytics:read']);
    expect((await reader.patch({ name: 'Nope' })).status).toBe(403);
    expect((await reader.get()).status).toBe(200);
    expect((await other.get()).status).toBe(403);
    expect(await head('px_account_scopes')).toBeUndefined();
  });
});
