import type { FxTable } from '../ads/fx-table';
import { OrderMoney } from '../analytics/order-money';
import { orderUtcDate } from '../analytics/query-data';
import { defaultCostSettings, gatewayKey, type CostSettings, type SkuCost } from '../schemas/cost-settings';

/**
 * What an order cost the merchant (issue P9), the one place the query's profit measures and the
 * cohort margins take it from. Every amount is converted to the requested currency at the rate of
 * the order's UTC date (the FX rule of ARCHITECTURE.md), like the order's value:
 *
 * - COGS = Σ over items of quantity × unit cost, where the unit cost is, first to apply: the
 *   item's own `cost`; the cost of its `sku` in effect on the order's UTC date (the SKU line with
 *   the latest `effectiveFrom` whose `effectiveFrom`..`effectiveTo` holds the date, both inclusive);
 *   `defaultCogsPercent` % of the item's price. An order without items is costed as one item of
 *   quantity 1 priced at the order's value.
 * - shipping cost = the order's `shippingCost` when stated, else `defaultShippingCostPerOrder`.
 * - payment fees = `percent` % of the order's value + `fixed`, of the `gatewayFees` entry whose
 *   `gateway` equals the order's `paymentGateway` ignoring case and surrounding spaces; 0 when
 *   none does.
 * - handling fees = `handlingFeePerItem` × the number of item lines (1 for an order without items).
 *
 * Refunds never reverse costs: merchants rarely restock what comes back.
 */
export interface CostedOrder {
  orderDate: string;
  /** `orderDate` in epoch milliseconds, when the reader gave it (`orderUtcDate` reads the date from it). */
  orderTime?: number;
  value: number | null;
  currency: string | null;
  paymentGateway: string | null;
  items?: ReadonlyArray<{ sku?: string; quantity: number; price: number; cost?: number }>;
  shippingCost?: number;
}

export interface OrderCosts {
  cogs: number;
  shipping: number;
  paymentFees: number;
  handlingFees: number;
}

/** A pixel's cost inputs, indexed for costing many orders. */
export class CostBook {
  private readonly bySku = new Map<string, SkuCost[]>();
  private readonly gateways: ReadonlyMap<string, CostSettings['gatewayFees'][number]>;

  constructor(
    readonly settings: CostSettings = defaultCostSettings(),
    skuCosts: readonly SkuCost[] = [],
  ) {
    for (const line of skuCosts) {
      const lines = this.bySku.get(line.sku);
      if (lines) lines.push(line);
      else this.bySku.set(line.sku, [line]);
    }
    for (const lines of this.bySku.values()) lines.sort((a, b) => (a.effectiveFrom < b.effectiveFrom ? 1 : a.effectiveFrom > b.effectiveFrom ? -1 : 0));
    this.gateways = new Map(settings.gatewayFees.map((fee) => [gatewayKey(fee.gateway), fee]));
  }

  /** The SKU's cost line in effect on a UTC date (YYYY-MM-DD). */
  skuCostOn(sku: string, date: string): SkuCost | undefined {
    return this.bySku.get(sku)?.find((line) => line.effectiveFrom <= date && (line.effectiveTo === undefined || date <= line.effectiveTo));
  }

  gatewayFee(gateway: string | null): CostSettings['gatewayFees'][number] | undefined {
    return gateway === null ? undefined : this.gateways.get(gatewayKey(gateway));
  }
}

/**
 * The order's costs in `currency`, or the reason one amount could not be converted.
 */
export function costsOfOrder(order: CostedOrder, book: CostBook, fx: FxTable, currency: string): { costs: OrderCosts } | { failure: string } {
  // One object per order, not a closure per amount: costing runs once per order of a query, and
  // closures made per call were a measurable part of it.
  const money = new OrderMoney(fx, currency);
  const date = orderUtcDate(order);
  const { settings } = book;
  const items = order.items && order.items.length > 0 ? order.items : [{ quantity: 1, price: order.value ?? 0 }];
  let cogs = 0;
  for (const item of items) {
    if (item.cost !== undefined) {
      cogs += money.convert(item.quantity * item.cost, order.currency, date);
      continue;
    }
    const skuCost = 'sku' in item && item.sku !== undefined ? book.skuCostOn(item.sku, date) : undefined;
    cogs += skuCost
      ? money.convert(item.quantity * skuCost.cost, skuCost.currency, date)
      : money.convert((item.quantity * item.price * settings.defaultCogsPercent) / 100, order.currency, date);
  }
  const shipping =
    order.shippingCost !== undefined ? money.convert(order.shippingCost, order.currency, date) : money.convert(settings.defaultShippingCostPerOrder, settings.currency, date);
  const fee = book.gatewayFee(order.paymentGateway);
  const paymentFees = fee ? money.convert(((order.value ?? 0) * fee.percent) / 100, order.currency, date) + money.convert(fee.fixed, settings.currency, date) : 0;
  const handlingFees = money.convert(items.length * settings.handlingFeePerItem, settings.currency, date);
  const { failure } = money;
  return failure === undefined ? { costs: { cogs, shipping, paymentFees, handlingFees } } : { failure };
}
