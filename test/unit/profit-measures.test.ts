import { describe, expect, it } from 'vitest';
import { ad, hour, order, query, type MemoryPixel } from '../support/query-fixtures';

/*
 * Costs in the query (README, "Costs and contribution margin"). Rates per 1 USD: EUR 0.8. Fixed
 * amounts of the settings are in EUR: shipping 4 EUR = 5 USD, handling 0.5 EUR = 0.625 USD a line,
 * Stripe 3 % + 0.4 EUR (= 0.5 USD). SKU A costs 5 USD through Mar 1 and 8 EUR from Mar 2.
 */
const pixel: MemoryPixel = {
  fx: [{ date: '2026-01-01', rates: { USD: 1, EUR: 0.8 } }],
  events: [],
  ads: [{ ad: ad('meta', 'm1', 'USD'), hours: [hour('2026-03-02T09:00:00Z', 20, 1000, 10)] }],
  costSettings: { defaultCogsPercent: 50, handlingFeePerItem: 0.5, defaultShippingCostPerOrder: 4, gatewayFees: [{ gateway: 'Stripe', percent: 3, fixed: 0.4 }], currency: 'EUR' },
  skuCosts: [
    { sku: 'A', cost: 5, currency: 'USD', effectiveFrom: '2026-01-01', effectiveTo: '2026-03-01' },
    { sku: 'A', cost: 8, currency: 'EUR', effectiveFrom: '2026-03-02' },
  ],
  orders: [
    order('p1', '2026-03-01T10:00:00Z', {
      value: 100,
      items: [{ sku: 'A', quantity: 2, price: 40 }, { sku: 'B', quantity: 1, price: 20, cost: 3 }],
      shippingCost: 6,
      refunds: [{ amount: 10, processedAt: '2026-03-02T08:00:00.000Z' }],
    }),
    order('p2', '2026-03-02T10:00:00Z', { value: 50, currency: 'EUR', paymentGateway: 'paypal', items: [{ sku: 'A', quantity: 1, price: 50 }] }),
    order('p3', '2026-03-02T12:00:00Z', { value: 30, financialStatus: 'pending' }),
    order('p4', '2026-03-02T13:00:00Z', { value: 40, paymentGateway: ' STRIPE ' }),
  ],
};

const PROFIT = ['orders.cogs', 'orders.shipping_costs', 'orders.payment_fees', 'orders.handling_fees', 'orders.cm1', 'orders.cm2', 'core.cm3'];
const BODY = { measures: PROFIT, granularity: 'day', dateRange: { start: '2026-03-01', end: '2026-03-02' }, compareDateRange: { start: '2026-02-01', end: '2026-02-02' } };
const strip = (point: Record<string, unknown> | undefined) => Object.fromEntries(PROFIT.map((measure) => [measure, point?.[measure]]));

describe('profit measures of the query', () => {
  it('costs each counted order from its items and the settings, per day and over the range', async () => {
    const result = await query(pixel, BODY);
    const [first, second] = result.data.primary;
    // p1: A at 5 USD (in effect through Mar 1) ×2 + B's own cost 3; stated shipping 6; Stripe 3 + 0.5; two lines.
    expect(strip(first)).toEqual({
      'orders.cogs': 13, 'orders.shipping_costs': 6, 'orders.payment_fees': 3.5, 'orders.handling_fees': 1.25, 'orders.cm1': 87, 'orders.cm2': 76.25, 'core.cm3': 76.25,
    });
    // p2 (62.5 USD): A at 8 EUR from Mar 2, default shipping 4 EUR, no PayPal fee; p4 without items: 50 % of 40,
    // its gateway matched ignoring case and spaces; p3 is pending and costs nothing. Refund 10 of p1 on its day; spend 20.
    expect(strip(second)).toEqual({
      'orders.cogs': 30, 'orders.shipping_costs': 10, 'orders.payment_fees': 1.7, 'orders.handling_fees': 1.25, 'orders.cm1': 62.5, 'orders.cm2': 49.55, 'core.cm3': 29.55,
    });
    expect(Object.fromEntries(result.measureDetails.map((detail) => [detail.measure, detail.primarySum]))).toEqual({
      'orders.cogs': 43, 'orders.shipping_costs': 16, 'orders.payment_fees': 5.2, 'orders.handling_fees': 2.5, 'orders.cm1': 149.5, 'orders.cm2': 125.8, 'core.cm3': 105.8,
    });
  });

  it('counts a pending order and its costs with countPendingOrders', async () => {
    const result = await query(pixel, { ...BODY, orderSettings: { countPendingOrders: true } });
    // p3: 50 % of 30, shipping 5, Stripe 0.9 + 0.5, one line.
    expect(strip(result.data.primary[1])).toMatchObject({ 'orders.cogs': 45, 'orders.shipping_costs': 15, 'orders.payment_fees': 3.1, 'orders.handling_fees': 1.875 });
  });

  it('reverses no cost when an order is refunded, and moves the refund to the order day with order_date', async () => {
    const result = await query(pixel, { ...BODY, orderSettings: { refundDateAttribution: 'order_date' } });
    expect(strip(result.data.primary[0])).toMatchObject({ 'orders.cogs': 13, 'orders.cm1': 77, 'orders.cm2': 66.25 });
    expect(strip(result.data.primary[1])).toMatchObject({ 'orders.cogs': 30, 'orders.cm1': 72.5 });
  });

  it('costs only stated unit costs without cost settings', async () => {
    const result = await query({ ...pixel, costSettings: undefined, skuCosts: [] }, { measures: ['orders.cogs', 'orders.cm1', 'orders.net_revenue'], dateRange: BODY.dateRange });
    // Only B's own unit cost remains: CM1 = net revenue − 3.
    expect(result.measureDetails.map((detail) => detail.primarySum)).toEqual([3, 189.5, 192.5]);
  });

  it('fails only the cost measures when a cost amount has no exchange rate', async () => {
    const pricedInYen = { ...pixel, skuCosts: [{ sku: 'A', cost: 800, currency: 'JPY', effectiveFrom: '2026-01-01' }] };
    const result = await query(pricedInYen, { measures: ['orders.total_revenue', 'orders.cogs', 'orders.cm1', 'core.cm3', 'core.roas'], dateRange: BODY.dateRange });
    expect(result.measureDetails.map((detail) => [detail.measure, detail.success])).toEqual([
      ['orders.total_revenue', true],
      ['orders.cogs', false],
      ['orders.cm1', false],
      ['core.cm3', false],
      ['core.roas', true],
    ]);
    expect(result.measureDetails[1]!.reason).toContain('JPY');
    expect(result.data.primary[0]).toHaveProperty('orders.total_revenue', 202.5);
    expect(result.data.primary[0]).not.toHaveProperty('orders.cogs');
  });

  it('fails the money measures, not the counts, when an exchange rate is missing', async () => {
    const result = await query({ ...pixel, fx: [] }, { measures: ['orders.orders', 'orders.cogs', 'orders.cm2'], dateRange: BODY.dateRange });
    expect(result.measureDetails.map((detail) => [detail.measure, detail.success])).toEqual([
      ['orders.orders', true],
      ['orders.cogs', false],
      ['orders.cm2', false],
    ]);
  });
});
