import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FxTable } from '../../shared/ads/fx-table';
import type { FxRatesEntry } from '../../shared/schemas/ad-import';

// Rates chosen so every conversion below is exact in binary floating point.
const table = new FxTable([
  { date: '2026-03-03', rates: { USD: 1, EUR: 0.5, GBP: 0.25 } },
  { date: '2026-03-01', rates: { USD: 1, EUR: 0.8, GBP: 0.75, JPY: 150 } },
  { date: '2026-03-05', rates: { USD: 1, EUR: 0.625 } },
]);

describe('FxTable: rates units per 1 USD, amount / rate(from) * rate(to)', () => {
  it('converts with the rates of the date itself', () => {
    expect(table.convert(100, 'EUR', 'USD', '2026-03-01')).toBe(125);
    expect(table.convert(100, 'USD', 'EUR', '2026-03-01')).toBe(80);
    expect(table.convert(100, 'EUR', 'GBP', '2026-03-01')).toBe(93.75);
    expect(table.convert(3, 'USD', 'JPY', '2026-03-01')).toBe(450);
    expect(table.convert(100, 'EUR', 'GBP', '2026-03-03')).toBe(50);
  });

  it('uses each currency\u2019s latest earlier rate when a date has none for it', () => {
    expect(table.convert(100, 'EUR', 'USD', '2026-03-02')).toBe(125);
    expect(table.convert(100, 'EUR', 'USD', '2026-03-04')).toBe(200);
    expect(table.convert(100, 'EUR', 'USD', '2030-01-01')).toBe(160);
    // March 5 has EUR but no GBP: GBP's March 3 rate stands beside EUR's own of March 5.
    expect(table.convert(100, 'USD', 'GBP', '2026-03-05')).toBe(25);
    expect(table.convert(100, 'EUR', 'GBP', '2026-03-05')).toBe(40);
    // JPY was last given on March 1.
    expect(table.convert(100, 'JPY', 'USD', '2026-03-03')).toBe(100 / 150);
    expect(table.rateOn('GBP', '2026-03-04')).toBe(0.25);
  });

  it('has no result for a currency without a rate on or before the date, and only for it', () => {
    expect(table.rateOn('EUR', '2026-02-28')).toBeUndefined();
    expect(table.convert(100, 'EUR', 'USD', '2026-02-28')).toBeUndefined();
    expect(table.convert(100, 'CHF', 'USD', '2026-03-01')).toBeUndefined();
    expect(table.convert(100, 'toString', 'USD', '2026-03-01')).toBeUndefined();
    expect(table.convert(100, 'EUR', 'USD', '2026-03-01')).toBe(125);
  });

  it('leaves an amount unchanged between equal currencies, even without any rates', () => {
    expect(table.convert(12.34, 'EUR', 'EUR', '2026-02-28')).toBe(12.34);
    expect(new FxTable([]).convert(7, 'CHF', 'CHF', '2026-03-01')).toBe(7);
    expect(new FxTable([]).convertAtLatest(7, 'CHF', 'CHF')).toBe(7);
  });

  it('converts budget fields at each currency\u2019s latest rate', () => {
    expect(table.convertAtLatest(100, 'EUR', 'USD')).toBe(160);
    // GBP's latest is March 3's, though March 5 is the latest date.
    expect(table.convertAtLatest(100, 'GBP', 'USD')).toBe(400);
    expect(table.convertAtLatest(1, 'CHF', 'USD')).toBeUndefined();
    expect(new FxTable([]).convertAtLatest(1, 'EUR', 'USD')).toBeUndefined();
  });

  it('merges two entries for one date, the later one winning per currency', () => {
    const merged = new FxTable([
      { date: '2026-03-01', rates: { USD: 1, EUR: 0.9 } },
      { date: '2026-03-01', rates: { EUR: 0.8, GBP: 0.5 } },
    ]);
    expect([merged.rateOn('USD', '2026-03-01'), merged.rateOn('EUR', '2026-03-01'), merged.rateOn('GBP', '2026-03-01')]).toEqual([1, 0.8, 0.5]);
  });
});

const CURRENCIES = ['USD', 'EUR', 'GBP', 'JPY'] as const;
const dateOf = (day: number) => new Date(Date.UTC(2026, 0, 1 + day)).toISOString().slice(0, 10);
const rate = fc.double({ min: 0.01, max: 500, noNaN: true });
/** Rates on random days of January and February, each date with a random subset of the currencies. */
const entries = fc.array(
  fc.record({ day: fc.integer({ min: 0, max: 58 }), rates: fc.dictionary(fc.constantFrom(...CURRENCIES), rate, { minKeys: 1 }) }),
  { maxLength: 30 },
);

/** The rule as stated: a currency's own rate on the date, else its latest earlier one. */
function referenceRate(list: ReadonlyArray<{ day: number; rates: Partial<Record<string, number>> }>, currency: string, day: number): number | undefined {
  let best: { day: number; rate: number } | undefined;
  list.forEach((entry) => {
    const value = entry.rates[currency];
    // The later of two entries of one date wins, as in an import.
    if (value !== undefined && entry.day <= day && (!best || entry.day >= best.day)) best = { day: entry.day, rate: value };
  });
  return best?.rate;
}

const asEntries = (list: ReadonlyArray<{ day: number; rates: Partial<Record<string, number>> }>): FxRatesEntry[] =>
  list.map((entry) => ({ date: dateOf(entry.day), rates: entry.rates as Record<string, number> }));

describe('FxTable: the per-currency as-of rule (property)', () => {
  it('converts every amount at each currency\u2019s own latest rate on or before the date, or not at all', () => {
    fc.assert(
      fc.property(entries, fc.constantFrom(...CURRENCIES), fc.constantFrom(...CURRENCIES), fc.integer({ min: 0, max: 60 }), fc.double({ min: 0, max: 1e6, noNaN: true }), (list, from, to, day, amount) => {
        const fromRate = referenceRate(list, from, day);
        const toRate = referenceRate(list, to, day);
        const expected = from === to ? amount : fromRate === undefined || toRate === undefined ? undefined : (amount / fromRate) * toRate;
        expect(new FxTable(asEntries(list)).convert(amount, from, to, dateOf(day))).toBe(expected);
      }),
    );
  });

  it('converts an amount on a date that has rates for other currencies only at the latest earlier rate of its own currency', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ day: fc.integer({ min: 0, max: 29 }), rates: fc.record({ EUR: rate, USD: fc.constant(1) }) }), { minLength: 1, maxLength: 10 }),
        fc.dictionary(fc.constantFrom('GBP', 'JPY', 'CAD'), rate, { minKeys: 1 }),
        fc.integer({ min: 30, max: 40 }),
        fc.double({ min: 0.01, max: 1e6, noNaN: true }),
        (earlier, others, day, amount) => {
          // The date itself has rates, but none for EUR (nor USD).
          const table = new FxTable([...asEntries(earlier), { date: dateOf(day), rates: others }]);
          const latestEur = referenceRate(earlier, 'EUR', day) as number;
          expect(table.convert(amount, 'EUR', 'USD', dateOf(day))).toBe(amount / latestEur);
          expect(table.convert(amount, 'USD', 'EUR', dateOf(day))).toBe(amount * latestEur);
          for (const [currency, own] of Object.entries(others)) expect(table.convert(amount, 'EUR', currency, dateOf(day))).toBe((amount / latestEur) * own);
        },
      ),
    );
  });
});
