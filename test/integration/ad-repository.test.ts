import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { adImportSchema, type AdImport } from '../../shared/schemas/ad-import';
import {
  adKeyString,
  listAds,
  loadHourlyMetrics,
  loadHourlyMetricsForAds,
  upsertAds,
  type HourlyMetrics,
} from '../../shared/store/ad-repository';
import { documentClient } from '../../shared/store/dynamo-client';
import { hourRow, validAdInput, validAdInputArbitrary } from '../support/ad-fixtures';
import { useFreshTable } from '../support/fresh-table';

let table: string;
beforeAll(async () => {
  table = await useFreshTable();
});

const ad = (overrides: Record<string, unknown> = {}): AdImport => adImportSchema.parse(validAdInput(overrides));
const metadataOf = ({ hourly: _hourly, ...metadata }: AdImport) => metadata;
const at = (iso: string) => new Date(iso);
const row = (iso: string, spend: number): HourlyMetrics => ({
  hour: Date.parse(iso),
  spend,
  impressions: 100,
  clicks: 3,
  conversions: 1,
  conversionValue: 25,
});

async function sortKeysOf(pk: string): Promise<string[]> {
  const { Items = [] } = await documentClient.send(
    new QueryCommand({ TableName: table, KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': pk } }),
  );
  return Items.map((item) => item.SK as string);
}

describe('ad repository (real SDK, dynalite)', () => {
  it('lists nothing for a pixel without ads', async () => {
    expect(await listAds('px_empty')).toEqual([]);
    expect(await loadHourlyMetrics('px_empty', { platform: 'meta', adId: 'a1' }, at('2026-01-01T00:00:00Z'), at('2027-01-01T00:00:00Z'))).toEqual([]);
  });

  it('lists every upserted ad, by platform then adId, with its metadata and without its hours', async () => {
    const meta = ad({ adId: 'm2' });
    const google = ad({ platform: 'google', adId: 'g1', currency: 'USD', dailyBudget: null, budgetRemaining: undefined });
    const tiktok = ad({ platform: 'tiktok', adId: 't1', hourly: undefined });
    const meta1 = ad({ adId: 'm1', adName: 'Carousel – Bestsellers 🏔️' });
    await upsertAds('px_list', [meta, google, tiktok, meta1]);

    expect(await listAds('px_list')).toEqual([metadataOf(google), metadataOf(meta1), metadataOf(meta), metadataOf(tiktok)]);
    expect((await listAds('px_list'))[0]).toMatchObject({ dailyBudget: null, budgetRemaining: null, amountSpent: 812.4 });
  });

  it('keeps pixels apart', async () => {
    await upsertAds('px_a', [ad({ adId: 'only-a' })]);
    await upsertAds('px_b', [ad({ adId: 'only-b' })]);
    expect((await listAds('px_a')).map((stored) => stored.adId)).toEqual(['only-a']);
    expect(await loadHourlyMetrics('px_b', { platform: 'meta', adId: 'only-a' }, at('2026-03-01T00:00:00Z'), at('2026-04-01T00:00:00Z'))).toEqual([]);
  });

  it('re-importing an ad replaces its metadata and only the hours given; other hours stay', async () => {
    const key = { platform: 'meta', adId: 'reimport' } as const;
    await upsertAds('px_re', [
      ad({ adId: 'reimport', adName: 'Old name', hourly: [hourRow('2026-03-01T10:00:00Z', 1), hourRow('2026-03-01T11:00:00Z', 2), hourRow('2026-04-02T00:00:00Z', 3)] }),
    ]);
    await upsertAds('px_re', [
      ad({ adId: 'reimport', adName: 'New name', status: 'PAUSED', hourly: [hourRow('2026-03-01T11:00:00Z', 20), hourRow('2026-03-01T12:00:00Z', 30)] }),
    ]);

    expect(await listAds('px_re')).toEqual([expect.objectContaining({ adName: 'New name', status: 'PAUSED' })]);
    expect(await loadHourlyMetrics('px_re', key, at('2026-01-01T00:00:00Z'), at('2027-01-01T00:00:00Z'))).toEqual([
      row('2026-03-01T10:00:00Z', 1),
      row('2026-03-01T11:00:00Z', 20),
      row('2026-03-01T12:00:00Z', 30),
      row('2026-04-02T00:00:00Z', 3),
    ]);
  });

  it('an ad re-imported without hours keeps all its stored hours', async () => {
    const key = { platform: 'google', adId: 'no-hours' } as const;
    await upsertAds('px_keep', [ad({ ...key, hourly: [hourRow('2026-03-01T10:00:00Z', 5)] })]);
    await upsertAds('px_keep', [ad({ ...key, adName: 'Renamed', hourly: undefined })]);
    expect((await listAds('px_keep'))[0]?.adName).toBe('Renamed');
    expect(await loadHourlyMetrics('px_keep', key, at('2026-03-01T00:00:00Z'), at('2026-03-02T00:00:00Z'))).toEqual([row('2026-03-01T10:00:00Z', 5)]);
  });

  it('an ad given twice in one call is imported twice, in order', async () => {
    const key = { platform: 'meta', adId: 'twice' } as const;
    await upsertAds('px_twice', [
      ad({ ...key, adName: 'First', hourly: [hourRow('2026-03-01T10:00:00Z', 1), hourRow('2026-03-01T11:00:00Z', 2)] }),
      ad({ ...key, adName: 'Second', hourly: [hourRow('2026-03-01T11:00:00Z', 22)] }),
    ]);
    expect((await listAds('px_twice')).map((stored) => stored.adName)).toEqual(['Second']);
    expect(await loadHourlyMetrics('px_twice', key, at('2026-03-01T00:00:00Z'), at('2026-03-02T00:00:00Z'))).toEqual([
      row('2026-03-01T10:00:00Z', 1),
      row('2026-03-01T11:00:00Z', 22),
    ]);
  });

  it('stores one item per ad per UTC month, and a range across a month boundary reads both', async () => {
    const key = { platform: 'tiktok', adId: 'boundary' } as const;
    const hours = ['2026-01-31T22:00:00Z', '2026-01-31T23:00:00Z', '2026-02-01T00:00:00Z', '2026-02-01T01:00:00Z'];
    await upsertAds('px_month', [ad({ ...key, hourly: hours.map((hour, i) => hourRow(hour, i + 1)) })]);

    expect(await sortKeysOf('PIXEL#px_month#AD#tiktok#boundary')).toEqual(['M#2026-01', 'M#2026-02', 'R#2026-01', 'R#2026-02']);
    expect(await loadHourlyMetrics('px_month', key, at('2026-01-31T23:00:00Z'), at('2026-02-01T01:00:00Z'))).toEqual([
      row('2026-01-31T23:00:00Z', 2),
      row('2026-02-01T00:00:00Z', 3),
    ]);
  });

  it('range queries are half-open [from, to), sorted by hour, and empty when to <= from', async () => {
    const key = { platform: 'meta', adId: 'range' } as const;
    const shuffled = ['2026-05-03T05:00:00Z', '2026-03-15T00:00:00Z', '2026-05-01T00:00:00Z', '2026-04-30T23:00:00Z', '2026-03-14T23:00:00Z'];
    await upsertAds('px_range', [ad({ ...key, hourly: shuffled.map((hour) => hourRow(hour, 1)) })]);
    const load = (from: string, to: string) => loadHourlyMetrics('px_range', key, at(from), at(to)).then((rows) => rows.map((r) => new Date(r.hour).toISOString()));

    expect(await load('2026-03-15T00:00:00Z', '2026-05-03T05:00:00Z')).toEqual([
      '2026-03-15T00:00:00.000Z',
      '2026-04-30T23:00:00.000Z',
      '2026-05-01T00:00:00.000Z',
    ]);
    expect(await load('2026-03-14T23:30:00Z', '2026-03-15T00:00:00.001Z')).toEqual(['2026-03-15T00:00:00.000Z']);
    expect(await load('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z')).toHaveLength(5);
    expect(await load('2026-05-03T05:00:00Z', '2026-05-03T05:00:00Z')).toEqual([]);
    expect(await load('2026-06-01T00:00:00Z', '2026-03-01T00:00:00Z')).toEqual([]);
  });

  it('serves the cached list while nothing changes, and sees a second import at once', async () => {
    await upsertAds('px_cache', [ad({ adId: 'first' })]);
    const before = await listAds('px_cache');
    expect(await listAds('px_cache')).toBe(before); // the same cached, frozen list
    expect(Object.isFrozen(before) && Object.isFrozen(before[0])).toBe(true);

    await upsertAds('px_cache', [ad({ adId: 'second' }), ad({ adId: 'first', adName: 'Renamed' })]);
    const after = await listAds('px_cache');
    expect(after.map((stored) => [stored.adId, stored.adName])).toEqual([
      ['first', 'Renamed'],
      ['second', 'Video 1'],
    ]);
    const { Item } = await documentClient.send(new GetCommand({ TableName: table, Key: { PK: 'PIXEL#px_cache#ADS', SK: 'DIRECTORY' } }));
    expect(Item?.version).toBe(2); // bumped once per call
  });

  it('loads many ads at once, keyed by platform#adId, with an empty list for an ad without data', async () => {
    const hourly = [hourRow('2026-03-01T10:00:00Z', 1)];
    await upsertAds('px_many', [ad({ adId: 'x', hourly }), ad({ platform: 'google', adId: 'x', hourly: [hourRow('2026-03-01T11:00:00Z', 2)] })]);
    const keys = [
      { platform: 'meta', adId: 'x' },
      { platform: 'google', adId: 'x' },
      { platform: 'tiktok', adId: 'missing' },
    ] as const;
    const loaded = await loadHourlyMetricsForAds('px_many', keys, at('2026-03-01T00:00:00Z'), at('2026-03-02T00:00:00Z'), 2);
    expect([...loaded]).toEqual([
      ['meta#x', [row('2026-03-01T10:00:00Z', 1)]],
      ['google#x', [row('2026-03-01T11:00:00Z', 2)]],
      ['tiktok#missing', []],
    ]);
    expect(adKeyString({ platform: 'meta', adId: 'a#b' })).toBe('meta#a#b');
  });

  it('imports in bulk: 110 ads x 33 days (220 month items: three BatchGets, many BatchWrites) round-trip exactly', async () => {
    const start = Date.parse('2026-01-01T00:00:00Z');
    const ads = Array.from({ length: 110 }, (_, i) =>
      ad({
        adId: `bulk-${String(i).padStart(3, '0')}`,
        hourly: Array.from({ length: 33 * 24 }, (_, h) =>
          hourRow(new Date(start + h * 3_600_000).toISOString(), Math.round(i * 100 + h * 0.37 * 100) / 100, { impressions: h, clicks: i }),
        ),
      }),
    );
    await upsertAds('px_bulk', ads);
    expect(await listAds('px_bulk')).toHaveLength(110);
    const loaded = await loadHourlyMetricsForAds('px_bulk', ads, at('2026-01-01T00:00:00Z'), at('2026-02-03T00:00:00Z'));
    for (const imported of ads) expect(loaded.get(adKeyString(imported))).toEqual(imported.hourly);
  });

  it('any valid ad round-trips exactly through upsertAds, listAds and loadHourlyMetrics', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(validAdInputArbitrary, async (input) => {
        const pixelId = `px_prop_${run++}`;
        const imported = adImportSchema.parse(input);
        await upsertAds(pixelId, [imported]);
        expect(await listAds(pixelId)).toEqual([metadataOf(imported)]);
        const hours = await loadHourlyMetrics(pixelId, imported, new Date(Date.UTC(2020, 0, 1)), new Date(Date.UTC(2031, 0, 2)));
        expect(hours).toEqual([...(imported.hourly ?? [])].sort((a, b) => a.hour - b.hour));
      }),
      { numRuns: 40 },
    );
  });
});
