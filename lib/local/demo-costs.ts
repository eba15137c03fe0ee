import type { CostSettings, SkuCost } from '../../shared/schemas/cost-settings';
import type { OrderItem } from '../../shared/orders/order-fields';
import { addDays } from '../../shared/time/zoned-time';

/**
 * The demo merchant's costs (issue P9): cost settings, a small outerwear catalogue whose SKUs have
 * unit costs (repriced 45 days before the first start, two SKUs without a cost line so the
 * default COGS percent shows), and the items of each demo order, drawn from their own random
 * stream so the orders' other fields stay what they were.
 */
export const DEMO_COST_SETTINGS: CostSettings = {
  defaultCogsPercent: 40,
  handlingFeePerItem: 0.75,
  defaultShippingCostPerOrder: 6.5,
  gatewayFees: [
    { gateway: 'stripe', percent: 2.9, fixed: 0.3 },
    { gateway: 'paypal', percent: 3.49, fixed: 0.49 },
    { gateway: 'shop_pay', percent: 2.9, fixed: 0.3 },
  ],
  currency: 'USD',
};

/** [sku, title, list price in USD, unit cost in USD or null (no cost line)]. */
export const DEMO_CATALOGUE = [
  ['NW-SOCK-3P', 'Merino socks, 3 pairs', 24, 7.2],
  ['NW-BEANIE', 'Rib beanie', 32, 9.5],
  ['NW-GLOVES', 'Fleece gloves', 38, null],
  ['NW-TEE', 'Organic tee', 45, 12.4],
  ['NW-HOODIE', 'Loopback hoodie', 89, 31],
  ['NW-FLEECE', 'Grid fleece', 119, 44],
  ['NW-RAIN', 'Rain jacket', 149, 52],
  ['NW-BOOTS', 'Trail boots', 189, null],
  ['NW-DOWN', 'Down jacket', 249, 96],
] as const;

/** The SKU cost lines: last year's cost until 46 days before `clock`, 5 % more since. */
export function demoSkuCosts(clock: Date): SkuCost[] {
  const today = clock.toISOString().slice(0, 10);
  const repriced = addDays(today, -45);
  return DEMO_CATALOGUE.flatMap(([sku, , , cost]) =>
    cost === null
      ? []
      : [
          { sku, cost, currency: 'USD', effectiveFrom: addDays(today, -730), effectiveTo: addDays(repriced, -1) },
          { sku, cost: Math.round(cost * 105) / 100, currency: 'USD', effectiveFrom: repriced },
        ],
  );
}

/**
 * Items adding up to an order's value: one to three lines, each the catalogue SKU whose list
 * price is nearest the line's share of the value, at that share as its unit price.
 */
export function demoItems(random: () => number, value: number): OrderItem[] {
  const lines = value < 60 ? 1 : 1 + Math.floor(random() * 3);
  const weights = Array.from({ length: lines }, () => 0.5 + random());
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  let left = value;
  return weights.map((weight, i) => {
    const share = i === lines - 1 ? Math.round(left * 100) / 100 : Math.round(((value * weight) / total) * 100) / 100;
    left -= share;
    const quantity = share > 60 || random() < 0.8 ? 1 : 2;
    const price = Math.round((share / quantity) * 100) / 100;
    const [sku, title] = DEMO_CATALOGUE.reduce((best, entry) => (Math.abs(entry[2] - price) < Math.abs(best[2] - price) ? entry : best));
    return { sku, title, quantity, price };
  });
}
