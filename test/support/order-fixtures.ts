import type { Order } from '../../shared/orders/order';

/** An order as the order store holds it: paid, 100 USD on 2026-03-01 from the web, no customer identifiers, unless `overrides` say otherwise. */
export const storedOrder = (orderId: string, overrides: Partial<Order> = {}): Order => ({
  orderId,
  orderDate: '2026-03-01T10:00:00.000Z',
  value: 100,
  currency: 'USD',
  sourceName: 'web',
  tags: [],
  paymentGateway: 'stripe',
  financialStatus: 'paid',
  refunds: [],
  customer: { emailHashes: [], phoneHashes: [], userIds: [] },
  createdAt: '2026-03-01T10:00:00.000Z',
  updatedAt: '2026-03-01T10:00:00.000Z',
  ...overrides,
});
