import type { FxRatesEntry } from '../schemas/ad-import';

/**
 * A pixel's exchange rates and the conversion rule of ARCHITECTURE.md: rates are units of a
 * currency per 1 USD, and an amount converts from A to B on a date as `amount / rate(A) * rate(B)`,
 * where each currency's rate is its own rate on that date or, when that date has none for it, its
 * latest earlier one (per currency, an as-of lookup). A currency with no rate on or before the
 * date cannot be converted: only the amounts that need it fail.
 *
 * Immutable once built, so one table can be shared by concurrent requests and cached.
 */
export class FxTable {
  /** Per currency, its dates ascending and the rate of each. */
  private readonly byCurrency = new Map<string, { dates: string[]; rates: number[] }>();
  private readonly dateSet = new Set<string>();

  /** Entries may come in any order; two entries for one date merge per currency, the later one's rates winning. */
  constructor(entries: readonly FxRatesEntry[]) {
    const merged = new Map<string, Map<string, number>>();
    for (const entry of entries) {
      this.dateSet.add(entry.date);
      for (const [currency, rate] of Object.entries(entry.rates)) {
        let dates = merged.get(currency);
        if (!dates) merged.set(currency, (dates = new Map()));
        dates.set(entry.date, rate);
      }
    }
    for (const [currency, dates] of merged) {
      const sorted = [...dates.keys()].sort();
      this.byCurrency.set(currency, { dates: sorted, rates: sorted.map((date) => dates.get(date) as number) });
    }
  }

  /** `currency`'s rate in force on `date` (YYYY-MM-DD): its own, or its latest earlier one; undefined before its first. */
  rateOn(currency: string, date: string): number | undefined {
    const series = this.byCurrency.get(currency);
    if (!series) return undefined;
    const { dates, rates } = series;
    let low = 0;
    let high = dates.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if ((dates[middle] as string) <= date) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found < 0 ? undefined : rates[found];
  }

  /** `currency`'s latest rate, whatever its date. */
  latestRate(currency: string): number | undefined {
    const series = this.byCurrency.get(currency);
    return series ? series.rates[series.rates.length - 1] : undefined;
  }

  /** `amount` in `to`, at the rates in force on `date`; the same amount when the currencies are equal; undefined when a rate is missing. */
  convert(amount: number, from: string, to: string, date: string): number | undefined {
    if (from === to) return amount;
    // Queries convert amount after amount of the same day and pair: the last pair of rates is kept.
    if (date !== this.last.date || from !== this.last.from || to !== this.last.to) {
      this.last = { date, from, to, fromRate: this.rateOn(from, date), toRate: this.rateOn(to, date) };
    }
    const { fromRate, toRate } = this.last;
    return fromRate === undefined || toRate === undefined ? undefined : (amount / fromRate) * toRate;
  }

  private last: { date?: string; from?: string; to?: string; fromRate?: number; toRate?: number } = {};

  /** `amount` in `to` at each currency's latest rate (how budget fields are shown). */
  convertAtLatest(amount: number, from: string, to: string): number | undefined {
    if (from === to) return amount;
    const fromRate = this.latestRate(from);
    const toRate = this.latestRate(to);
    return fromRate === undefined || toRate === undefined ? undefined : (amount / fromRate) * toRate;
  }

  /** How many dates have any rate: the table's weight in a cache. */
  get dateCount(): number {
    return this.dateSet.size;
  }
}
