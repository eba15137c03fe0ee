import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { assignIdentity } from '../../shared/order-settings/assign-identity';
import { defaultOrderSettings, orderSettingsInputSchema, type OrderSettings } from '../../shared/schemas/order-settings';
import { documentClient } from '../../shared/store/dynamo-client';
import { ConcurrentUpdateError, loadOrderSettings, saveOrderSettings } from '../../shared/store/order-settings-repository';
import { useFreshTable } from '../support/fresh-table';
import { validSettings } from '../support/order-settings-fixtures';

let table: string;
beforeAll(async () => {
  table = await useFreshTable();
});

const NOW = new Date('2026-03-01T00:00:00.000Z');
const settingsFrom = (body: unknown): OrderSettings =>
  assignIdentity(orderSettingsInputSchema.parse(body), defaultOrderSettings(), NOW);

/** The largest document the spec allows: 50 filters x 20 groups x 20 conditions, long values. */
function largestAllowedSettings(): OrderSettings {
  const conditions = Array.from({ length: 20 }, (_, i) => ({ field: 'sourceName', operator: 'in', value: [`source-${i}-${'x'.repeat(40)}`, `other-${i}`] }));
  const groups = Array.from({ length: 20 }, () => ({ logic: 'or', conditions }));
  const filters = Array.from({ length: 50 }, (_, i) => ({ name: `Filter ${i} ${'n'.repeat(80)}`, enabled: i % 2 === 0, conditionGroups: groups }));
  return settingsFrom(validSettings({ exclusionFilters: filters }));
}

async function chunkKeys(pixelId: string): Promise<string[]> {
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: table,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
      ExpressionAttributeValues: { ':pk': `PIXEL#${pixelId}`, ':prefix': 'ORDER_SETTINGS#' },
    }),
  );
  return Items.map((item) => item.SK as string);
}

describe('order settings repository (real SDK, dynalite)', () => {
  it('finds nothing for a pixel that never saved settings', async () => {
    expect(await loadOrderSettings('px_never')).toBeUndefined();
  });

  it('stores a version and reads back exactly what it stored', async () => {
    const settings = settingsFrom(validSettings());
    const version = await saveOrderSettings('px_roundtrip', settings, undefined, NOW, { changeId: 'change-1' });
    expect(await loadOrderSettings('px_roundtrip')).toEqual({ settings, version: 1, changeId: 'change-1', outbox: [], outboxRev: 0 });
    expect(version).toBe(1);
  });

  it('refuses a write based on a stale version, leaving the winner intact', async () => {
    const first = settingsFrom(validSettings());
    await saveOrderSettings('px_race', first, undefined, NOW);
    const winner = settingsFrom(validSettings({ countPendingOrders: true }));
    await saveOrderSettings('px_race', winner, 1, NOW);

    await expect(saveOrderSettings('px_race', first, 1, NOW)).rejects.toBeInstanceOf(ConcurrentUpdateError);
    await expect(saveOrderSettings('px_new', first, 3, NOW)).rejects.toBeInstanceOf(ConcurrentUpdateError);
    expect(await loadOrderSettings('px_race')).toMatchObject({ settings: winner, version: 2, outbox: [], outboxRev: 0 });
  });

  it('stores the largest document the spec allows, beyond the 400 KB item limit, and reads it back whole', async () => {
    const largest = largestAllowedSettings();
    expect(JSON.stringify(largest).length).toBeGreaterThan(400 * 1024);

    await saveOrderSettings('px_large', largest, undefined, NOW);

    expect((await loadOrderSettings('px_large'))?.settings).toEqual(largest);
  });

  it('removes the chunks of superseded versions once a newer version is committed', async () => {
    await saveOrderSettings('px_chunks', largestAllowedSettings(), undefined, NOW);
    const chunksOfFirst = await chunkKeys('px_chunks');
    expect(chunksOfFirst.length).toBeGreaterThan(0);

    await saveOrderSettings('px_chunks', largestAllowedSettings(), 1, NOW);
    const chunksOfSecond = await chunkKeys('px_chunks');
    expect(chunksOfSecond.length).toBeGreaterThan(0);
    expect(chunksOfSecond.some((key) => chunksOfFirst.includes(key))).toBe(false);

    await saveOrderSettings('px_chunks', settingsFrom(validSettings()), 2, NOW);
    expect(await chunkKeys('px_chunks')).toEqual([]);
  });
});
