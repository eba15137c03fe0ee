import type { FxRatesEntry } from '../schemas/ad-import';

/**
 * A pixel's exchange rates and the conversion rule of ARCHITECTURE.md: rates are units of a
 * currency per 1 USD, and an amount converts from A to B on a date as `amount / rates[A] * rates[B]`
 * with that date's rates, or the latest earlier date's when that date has none. A date either
 * has an entry or falls back as a whole: a currency missing from the date that is used is
 * missing, rather than mixed in from another day.
 *
 * Immutable once built, so one table can be shared by concurrent requests and cached.
 */
export class FxTable {
  /** Ascending, one per distinct date. */
  private readonly dates: string[];
  private readonly ratesByDate: ReadonlyArray<Readonly<Record<string, number>>>;

  /** Entries may come in any order; two entries for one date merge, the later one's rates winning. */
  constructor(entries: readonly FxRatesEntry[]) {
    const merged = new Map<string, Record<string, number>>();
    for (const entry of entries) merged.set(entry.date, { ...merged.get(entry.date), ...entry.rates });
    this.dates = [...merged.keys()].sort();
    this.ratesByDate = this.dates.map((date) => Object.freeze({ ...merged.get(date) }));
  }

  /** The rates in force on `date` (YYYY-MM-DD): its own, or the latest earlier date's; undefined before the first date. */
  ratesOn(date: string): Readonly<Record<string, number>> | undefined {
    // Queries convert order after order of the same day: the last answer is kept.
    if (date === this.lastDate) return this.lastRates;
    const rates = this.search(date);
    this.lastDate = date;
    this.lastRates = rates;
    return rates;
  }

  private lastDate: string | undefined;
  private lastRates: Readonly<Record<string, number>> | undefined;

  private search(date: string): Readonly<Record<string, number>> | undefined {
    let low = 0;
    let high = this.dates.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if ((this.dates[middle] as string) <= date) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found < 0 ? undefined : this.ratesByDate[found];
  }

  /** `amount` in `to`, at the rates in force on `date`; the same amount when the currencies are equal; undefined when a rate is missing. */
  convert(amount: number, from: string, to: string, date: string): number | undefined {
    if (from === to) return amount;
    return convertWith(this.ratesOn(date), amount, from, to);
  }

  /** `amount` in `to` at the latest rates (how budget fields are shown). */
  convertAtLatest(amount: number, from: string, to: string): number | undefined {
    if (from === to) return amount;
    const latest = this.latestDate();
    return latest === undefined ? undefined : convertWith(this.ratesOn(latest), amount, from, to);
  }

  /** How many dates it holds: its weight in a cache. */
  get dateCount(): number {
    return this.dates.length;
  }

  latestDate(): string | undefined {
    return this.dates[this.dates.length - 1];
  }
}

function convertWith(rates: Readonly<Record<string, number>> | undefined, amount: number, from: string, to: string): number | undefined {
  if (!rates || !Object.hasOwn(rates, from) || !Object.hasOwn(rates, to)) return undefined;
  return (amount / (rates[from] as number)) * (rates[to] as number);
}
