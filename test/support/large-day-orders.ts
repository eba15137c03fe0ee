import { createHash } from 'node:crypto';
import type { Order } from '../../shared/orders/order';

const SOURCES = ['web', 'web', 'pos', 'shopify_draft_order'];
const GATEWAYS = ['shopify_payments', 'paypal', 'stripe'];
const hex = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The `index`-th order of the UTC day starting at `dayStart`, as an import stores it: a 13-digit
 * order id, one of `customers` customers (an email hash and a user id each; every other one a
 * phone hash too), two line items, a refund on one order in ten (processed the same day), and a
 * pending order in twenty. Customer `c` is the same person on every day.
 */
export function largeDayOrder(dayStart: number, index: number, customers: number, id = `${5_000_000_000_000 + Math.floor(dayStart / 86_400_000) * 100_000 + index}`): Order {
  const customer = index % customers;
  const orderDate = new Date(dayStart + ((index * 2_880_007) % 86_400_000)).toISOString();
  const value = 20 + ((index * 37) % 180) + 0.95;
  return {
    orderId: id,
    orderDate,
    value,
    currency: 'USD',
    sourceName: SOURCES[index % SOURCES.length]!,
    tags: index % 3 === 0 ? ['vip', 'summer-sale'] : [],
    paymentGateway: GATEWAYS[index % GATEWAYS.length]!,
    financialStatus: index % 20 === 7 ? 'pending' : index % 10 === 3 ? 'partially_refunded' : 'paid',
    refunds: index % 10 === 3 ? [{ amount: 10, processedAt: new Date(Math.min(Date.parse(orderDate) + 3_600_000, dayStart + 86_399_000)).toISOString() }] : [],
    customer: {
      emailHashes: [hex(`customer${customer}@example.com`)],
      phoneHashes: customer % 2 === 0 ? [hex(`+1555${customer}`)] : [],
      userIds: [`customer-${customer}`],
    },
    items: [
      { sku: `SKU-${index % 50}`, quantity: 1, price: value - 10.95, cost: 8 },
      { sku: 'SHIP-INS', quantity: 1, price: 10.95 },
    ],
    createdAt: orderDate,
    updatedAt: orderDate,
  } as Order;
}
