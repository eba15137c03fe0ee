import type { FxTable } from '../ads/fx-table';
import { orderUtcDate, type QueryOrder } from './query-data';

/**
 * The one rule for an order's money in a report's currency: every amount of an order converts at
 * the rates of the order's UTC date. An amount without a rate counts as 0, and the first one is
 * kept in words (`failure`), so the engine can report the measures that read it as not
 * computable instead of answering a wrong sum.
 */
export class OrderMoney {
  failure: string | undefined;

  constructor(
    private readonly fx: FxTable,
    readonly currency: string,
  ) {}

  /** An amount of `order`, in the order's currency, converted. */
  of(order: Pick<QueryOrder, 'currency' | 'orderDate' | 'orderTime'>, amount: number | null): number {
    if (!amount) return 0;
    // Most orders are in the report's currency: no date needed.
    if (order.currency === this.currency) return amount;
    return this.convert(amount, order.currency, orderUtcDate(order));
  }

  /** `amount` in `from` (null: the order had no currency), converted at the rates of `date`. */
  convert(amount: number, from: string | null, date: string): number {
    if (amount === 0) return 0;
    const converted = from === null ? undefined : this.fx.convert(amount, from, this.currency, date);
    if (converted === undefined) {
      this.failure ??= `No exchange rate from ${from ?? 'an order without currency'} to ${this.currency} on ${date}`;
      return 0;
    }
    return converted;
  }
}
