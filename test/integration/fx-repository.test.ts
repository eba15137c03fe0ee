import { beforeAll, describe, expect, it } from 'vitest';
import { loadFxTable, upsertFxRates } from '../../shared/store/fx-repository';
import { useFreshTable } from '../support/fresh-table';

beforeAll(async () => {
  await useFreshTable();
});

describe('fx repository (real SDK, dynalite)', () => {
  it('gives an empty table to a pixel without rates', async () => {
    const table = await loadFxTable('px_none');
    expect(table.latestDate()).toBeUndefined();
    expect(table.convert(10, 'EUR', 'USD', '2026-03-01')).toBeUndefined();
  });

  it('stores dates and converts with them, falling back to the latest earlier date', async () => {
    await upsertFxRates('px_fx', [
      { date: '2026-03-03', rates: { USD: 1, EUR: 0.5 } },
      { date: '2026-03-01', rates: { USD: 1, EUR: 0.8, GBP: 0.75 } },
    ]);
    const table = await loadFxTable('px_fx');
    expect(table.latestDate()).toBe('2026-03-03');
    expect(table.convert(100, 'EUR', 'GBP', '2026-03-01')).toBe(93.75);
    expect(table.convert(100, 'EUR', 'USD', '2026-03-02')).toBe(125);
    expect(table.convert(100, 'EUR', 'USD', '2026-03-04')).toBe(200);
    expect(table.convert(100, 'EUR', 'USD', '2026-02-28')).toBeUndefined();
    expect(table.convertAtLatest(100, 'EUR', 'USD')).toBe(200);
  });

  it('merges a re-imported date per currency, and the next load sees it', async () => {
    await upsertFxRates('px_merge', [{ date: '2026-03-01', rates: { USD: 1, EUR: 0.8, GBP: 0.75 } }]);
    const before = await loadFxTable('px_merge');
    expect(await loadFxTable('px_merge')).toBe(before); // cached while the version is unchanged

    await upsertFxRates('px_merge', [{ date: '2026-03-01', rates: { EUR: 0.5, JPY: 150 } }]);
    const after = await loadFxTable('px_merge');
    expect(after.ratesOn('2026-03-01')).toEqual({ USD: 1, EUR: 0.5, GBP: 0.75, JPY: 150 });
    expect(after.convert(2, 'EUR', 'JPY', '2026-03-01')).toBe(600);
  });

  it('keeps pixels apart', async () => {
    await upsertFxRates('px_one', [{ date: '2026-03-01', rates: { USD: 1, EUR: 0.8 } }]);
    expect((await loadFxTable('px_two')).latestDate()).toBeUndefined();
  });
});
