import { describe, expect, it } from 'vitest';
import { FxTable } from '../../shared/ads/fx-table';
import { OrderMoney } from '../../shared/analytics/order-money';

// Units per 1 USD: EUR doubles between the two dates, GBP is known only from the second.
const fx = new FxTable([
  { date: '2026-03-01', rates: { USD: 1, EUR: 0.5 } },
  { date: '2026-03-02', rates: { USD: 1, EUR: 1, GBP: 0.8 } },
]);

const order = (currency: string | null, orderDate: string) => ({ currency, orderDate });

describe('OrderMoney: an order amount in the report currency', () => {
  it('converts at the rates of the order UTC date, not of the local one', () => {
    const money = new OrderMoney(fx, 'USD');
    // 23:30 in New York on the 1st is already the 2nd in UTC.
    expect(money.of(order('EUR', '2026-03-02T04:30:00.000Z'), 10)).toBe(10);
    expect(money.of(order('EUR', '2026-03-01T23:59:59.000Z'), 10)).toBe(20);
    expect(money.failure).toBeUndefined();
  });

  it('keeps an amount already in the report currency without needing a rate that day', () => {
    const money = new OrderMoney(fx, 'CHF');
    expect(money.of(order('CHF', '2020-01-01T00:00:00.000Z'), 12.5)).toBe(12.5);
    expect(money.failure).toBeUndefined();
  });

  it('counts an amount without a rate as 0 and keeps the first reason, in words', () => {
    const money = new OrderMoney(fx, 'USD');
    expect(money.of(order('GBP', '2026-03-01T10:00:00.000Z'), 8)).toBe(0);
    expect(money.of(order(null, '2026-03-02T10:00:00.000Z'), 5)).toBe(0);
    expect(money.of(order('GBP', '2026-03-02T10:00:00.000Z'), 8)).toBe(10);
    expect(money.failure).toBe('No exchange rate from GBP to USD on 2026-03-01');
  });

  it('names an order without currency, and lets nothing fail on a zero amount', () => {
    const money = new OrderMoney(fx, 'USD');
    expect(money.of(order(null, '2026-03-02T10:00:00.000Z'), 0)).toBe(0);
    expect(money.of(order('JPY', '2026-03-02T10:00:00.000Z'), null)).toBe(0);
    expect(money.failure).toBeUndefined();
    expect(money.convert(3, null, '2026-03-02')).toBe(0);
    expect(money.failure).toBe('No exchange rate from an order without currency to USD on 2026-03-02');
  });
});
