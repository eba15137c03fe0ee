import { describe, expect, it } from 'vitest';
import { toValidationIssues } from '../../shared/http/zod-issues';
import { mergeOrder, type OrderState } from '../../shared/orders/merge-order';
import { orderImportSchema, type OrderUpdate } from '../../shared/orders/order';
import { orderUpdateFromEvent, orderUpdateFromImport } from '../../shared/orders/order-updates';
import { toQueryOrder } from '../../shared/analytics/store/order-store';
import { trackingEventSchema } from '../../shared/tracking/event-schema';
import type { StoredEvent } from '../../shared/tracking/stored-event';

const NOW = new Date('2026-03-10T12:00:00.000Z');
const line = { orderId: '1', orderDate: '2026-03-01T10:00:00Z', value: 100, currency: 'USD' };
const issuesOf = (body: unknown) => {
  const result = orderImportSchema.safeParse(body);
  return result.success ? [] : toValidationIssues(result.error).map((issue) => `${issue.path.join('.')}: ${issue.message}`);
};
const purchase = (data: Record<string, unknown>, timestamp = '2026-03-01T10:00:00.000Z') =>
  ({ name: 'purchase', eventId: `e-${timestamp}`, timestamp, data: { orderId: '1', ...data } }) as unknown as StoredEvent;
const apply = (...updates: OrderUpdate[]) => updates.reduce<OrderState | undefined>((state, next) => mergeOrder(state, next, NOW), undefined)!.order;

describe('order items and costs', () => {
  it('imports items, shipping, discounts and taxes, strictly', () => {
    const items = [{ sku: 'S1', productId: 'p1', variantId: 'v1', title: 'Tee', quantity: 2, price: 20, cost: 7.5 }];
    const parsed = orderImportSchema.parse({ ...line, items, shippingCost: 4, shippingCharged: 5, discounts: 2, taxes: 8 });
    expect(orderUpdateFromImport(parsed, NOW).fields).toMatchObject({ items, shippingCost: 4, shippingCharged: 5, discounts: 2, taxes: 8 });
    expect(issuesOf({ ...line, items: [{ quantity: 1, price: 1, colour: 'red' }] })).toEqual(['items.0.colour: Unknown key \'colour\' is not allowed']);
    expect(issuesOf({ ...line, items: [{ quantity: 1 }] })).toEqual([expect.stringMatching(/^items\.0\.price: /)]);
    expect(issuesOf({ ...line, items: [{ quantity: 1, price: 2, cost: -1 }] })).toEqual([expect.stringMatching(/^items\.0\.cost: /)]);
    expect(issuesOf({ ...line, shippingCost: 'free' })).toEqual([expect.stringMatching(/^shippingCost: /)]);
    expect(issuesOf({ ...line, items: Array.from({ length: 201 }, () => ({ quantity: 1, price: 1 })) })).toEqual([expect.stringMatching(/^items: /)]);
  });

  it("reads a purchase event's data.items in the order's words", () => {
    const update = orderUpdateFromEvent(purchase({ items: [{ id: 'P1', sku: 'S1', name: 'Tee', price: 20, quantity: 2, cost: 8 }, { name: 'Mug', price: 5 }], shippingCost: 3 }))!;
    expect(update.fields.items).toEqual([
      { sku: 'S1', productId: 'P1', title: 'Tee', quantity: 2, price: 20, cost: 8 },
      { title: 'Mug', quantity: 1, price: 5 },
    ]);
    expect(update.fields.shippingCost).toBe(3);
    // A list an order item cannot hold (no price) says nothing about the order's items.
    expect(orderUpdateFromEvent(purchase({ items: [{ sku: 'S1', quantity: 1 }] }))!.fields).not.toHaveProperty('items');
  });

  it('validates the cost words of an event strictly', () => {
    const event = { name: 'purchase', data: { orderId: '1', shippingCost: -1, items: [{ sku: 'S', price: 1, cost: 'x' }] } };
    const result = trackingEventSchema.safeParse(event);
    expect(result.success).toBe(false);
    expect(toValidationIssues(result.error!).map((issue) => issue.path.join('.')).sort()).toEqual(['data.items.0.cost', 'data.shippingCost']);
  });

  it('keeps the items of the latest source that states them, whatever order sources arrive in', () => {
    const early = orderUpdateFromEvent(purchase({ items: [{ sku: 'A', price: 10, quantity: 1 }] }, '2026-03-01T10:00:00.000Z'))!;
    const late = orderUpdateFromEvent(purchase({ items: [{ sku: 'B', price: 12, quantity: 3 }] }, '2026-03-02T10:00:00.000Z'))!;
    const silent = orderUpdateFromEvent(purchase({ value: 50 }, '2026-03-03T10:00:00.000Z'))!;
    const expected = [{ sku: 'B', quantity: 3, price: 12 }];
    expect(apply(early, late, silent).items).toEqual(expected);
    expect(apply(late, early, silent).items).toEqual(expected);
    expect(apply(silent, late, early).items).toEqual(expected);
    // An order no source gave items to has none, as before items existed.
    expect(apply(silent)).not.toHaveProperty('items');
  });

  it('carries what costing reads into the query facts, and nothing else', () => {
    const order = apply(orderUpdateFromImport(orderImportSchema.parse({ ...line, items: [{ sku: 'S1', title: 'Tee', productId: 'p', quantity: 2, price: 20 }], shippingCost: 4, taxes: 3 }), NOW));
    const fact = toQueryOrder(order);
    expect(fact.items).toEqual([{ sku: 'S1', quantity: 2, price: 20 }]);
    expect(fact.shippingCost).toBe(4);
    expect(fact).not.toHaveProperty('taxes');
  });
});
