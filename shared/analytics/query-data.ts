import type { HourlyMetrics } from './store/ad-facts';
import type { Ad } from '../schemas/ad-import';
import type { FinancialStatus } from '../orders/order';
import { parseInstant } from '../time/iso-8601';
import type { MetCustomers } from '../orders/counting-rules';

/**
 * What the query engine reads for one range: the facts the read models keep, already narrowed to
 * the range by the store. Pure data, so the engine is tested on hand-built sets.
 */

/** An order as the query reads it (the stored order without bookkeeping). */
export interface QueryOrder {
  orderId: string;
  /** ISO instant, UTC, `toISOString()` form. */
  orderDate: string;
  /**
   * `orderDate` in epoch milliseconds, when the reader has it as a number (the store's day
   * copies): the engines read it instead of parsing the text back (`orderTimeOf`).
   */
  orderTime?: number;
  value: number | null;
  currency: string | null;
  sourceName: string | null;
  tags: string[];
  paymentGateway: string | null;
  financialStatus: FinancialStatus;
  refunds: Array<{ amount: number; processedAt: string }>;
  customer: { userIds: string[]; emailHashes: string[]; phoneHashes: string[] };
  /** What the cost measures read (issue P9); absent on facts projected before they existed and on orders without them. */
  items?: Array<{ sku?: string; quantity: number; price: number; cost?: number }>;
  shippingCost?: number;
  /**
   * What the order-day read model knows of the order's customer (absent when it does not know yet,
   * or for a hand-built set): then the query reads the customer's history instead.
   */
  customerDigest?: CustomerDigest;
}

/** The counting fields of one of a customer's orders. */
export type DigestOrder = Pick<QueryOrder, 'financialStatus' | 'sourceName' | 'tags' | 'value' | 'paymentGateway'>;

/**
 * An order's customer as of the stored orders: `customerId` is the order id of the customer's
 * earliest order (by order date, then id; counted or not), equal for all of one customer's orders;
 * `earlier` holds the counting fields of every order of the customer placed before this one
 * (same order), or is null when there are more than the read model keeps (then the query reads
 * the customer's history).
 */
export interface CustomerDigest {
  customerId: string;
  earlier: DigestOrder[] | null;
}

/** A tracking event as the query reads it. */
export interface QueryEvent {
  eventId: string;
  /** Epoch milliseconds. */
  at: number;
  name: string;
  utmSource: string | null;
  utmMedium: string | null;
  utmCampaign: string | null;
  /** Identity keys (identity-components.ts): user ids, email and phone hashes, click.fbp. */
  identities: string[];
  /** How many events this row stands for: 1 for an event, more for a row of an hourly rollup (which has no identities). */
  count?: number;
}

export interface RangeData {
  /** Orders placed in the range. */
  orders: readonly QueryOrder[];
  /** Orders with a refund processed in the range (for `refund_date` attribution); may repeat `orders`. */
  refundedOrders: readonly QueryOrder[];
  /**
   * Who each order's customer is and which order is each customer's first counted one, over the
   * customers' whole history (counting-rules.ts `metCustomers`).
   */
  customers: MetCustomers;
  events: readonly QueryEvent[];
  /**
   * Each ad's hours in the range, or instead its `cells` (ad-series.ts, day = index into
   * `rangeCalendar(range, timezone)`), which answer granularities of whole days.
   */
  ads: ReadonlyArray<{ ad: Ad; hours: readonly HourlyMetrics[]; cells?: Float64Array }>;
}

/** An order's date in epoch milliseconds: `orderTime` when the reader gave it, else parsed from `orderDate`. */
export const orderTimeOf = (order: Pick<QueryOrder, 'orderDate' | 'orderTime'>): number => order.orderTime ?? parseInstant(order.orderDate);

const DAY_MS = 86_400_000;
let lastDay = Number.NaN;
let lastDate = '';

/**
 * An order's UTC date (`YYYY-MM-DD`), whose exchange rate converts its amounts: from `orderTime`
 * when the reader gave it, so that a day copy's order never has its ISO text written (see
 * `DayCopyOrder`), else the date part of `orderDate`. Orders come day by day: the last day's text
 * is kept.
 */
export function orderUtcDate(order: Pick<QueryOrder, 'orderDate' | 'orderTime'>): string {
  if (order.orderTime === undefined) return order.orderDate.slice(0, 10);
  const day = Math.floor(order.orderTime / DAY_MS);
  if (day !== lastDay) {
    lastDay = day;
    lastDate = new Date(day * DAY_MS).toISOString().slice(0, 10);
  }
  return lastDate;
}
