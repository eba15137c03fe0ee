import { describe, expect, it } from 'vitest';
import { FxTable } from '../../shared/ads/fx-table';

// Rates chosen so every conversion below is exact in binary floating point.
const table = new FxTable([
  { date: '2026-03-03', rates: { USD: 1, EUR: 0.5, GBP: 0.25 } },
  { date: '2026-03-01', rates: { USD: 1, EUR: 0.8, GBP: 0.75, JPY: 150 } },
  { date: '2026-03-05', rates: { USD: 1, EUR: 0.625 } },
]);

describe('FxTable: rates units per 1 USD, amount / rates[from] * rates[to]', () => {
  it('converts with the rates of the date itself', () => {
    expect(table.convert(100, 'EUR', 'USD', '2026-03-01')).toBe(125);
    expect(table.convert(100, 'USD', 'EUR', '2026-03-01')).toBe(80);
    expect(table.convert(100, 'EUR', 'GBP', '2026-03-01')).toBe(93.75);
    expect(table.convert(3, 'USD', 'JPY', '2026-03-01')).toBe(450);
    expect(table.convert(100, 'EUR', 'GBP', '2026-03-03')).toBe(50);
  });

  it('uses the latest earlier date when a date has no rates', () => {
    expect(table.convert(100, 'EUR', 'USD', '2026-03-02')).toBe(125);
    expect(table.convert(100, 'EUR', 'USD', '2026-03-04')).toBe(200);
    expect(table.convert(100, 'EUR', 'USD', '2030-01-01')).toBe(160);
    expect(table.ratesOn('2026-03-04')).toEqual({ USD: 1, EUR: 0.5, GBP: 0.25 });
  });

  it('has no rate before the first date', () => {
    expect(table.ratesOn('2026-02-28')).toBeUndefined();
    expect(table.convert(100, 'EUR', 'USD', '2026-02-28')).toBeUndefined();
  });

  it('leaves an amount unchanged between equal currencies, even without any rates', () => {
    expect(table.convert(12.34, 'EUR', 'EUR', '2026-02-28')).toBe(12.34);
    expect(new FxTable([]).convert(7, 'CHF', 'CHF', '2026-03-01')).toBe(7);
    expect(new FxTable([]).convertAtLatest(7, 'CHF', 'CHF')).toBe(7);
  });

  it('has no result when the date in force lacks either currency (no mixing with other dates)', () => {
    expect(table.convert(100, 'JPY', 'USD', '2026-03-03')).toBeUndefined();
    expect(table.convert(100, 'USD', 'GBP', '2026-03-05')).toBeUndefined();
    expect(table.convert(100, 'CHF', 'USD', '2026-03-01')).toBeUndefined();
    expect(table.convert(100, 'toString', 'USD', '2026-03-01')).toBeUndefined();
  });

  it('converts at the latest date for budget fields', () => {
    expect(table.latestDate()).toBe('2026-03-05');
    expect(table.convertAtLatest(100, 'EUR', 'USD')).toBe(160);
    expect(table.convertAtLatest(100, 'GBP', 'USD')).toBeUndefined();
    expect(new FxTable([]).latestDate()).toBeUndefined();
    expect(new FxTable([]).convertAtLatest(1, 'EUR', 'USD')).toBeUndefined();
  });

  it('merges two entries for one date, the later one winning per currency', () => {
    const merged = new FxTable([
      { date: '2026-03-01', rates: { USD: 1, EUR: 0.9 } },
      { date: '2026-03-01', rates: { EUR: 0.8, GBP: 0.5 } },
    ]);
    expect(merged.ratesOn('2026-03-01')).toEqual({ USD: 1, EUR: 0.8, GBP: 0.5 });
  });
});
