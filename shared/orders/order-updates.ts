import type { TrackingEventInput } from '../tracking/event-schema';
import { hashAll, normalizeEmail, normalizePhone } from '../tracking/identity';
import type { CustomerIdentityInput } from '../tracking/identity-schema';
import type { StoredEvent } from '../tracking/stored-event';
import { orderItemsSchema, type OrderItem } from './order-fields';
import type { OrderImport, OrderUpdate, ReplaceableValues } from './order';

/**
 * What a purchase event says about its order. Only `purchase` events with `data.orderId` speak
 * about orders; the event's time is when the statement was true, and also the order date and
 * `paid` status when the event states neither.
 */
export function orderUpdateFromEvent(event: StoredEvent): OrderUpdate | undefined {
  const data = event.data as TrackingEventInput['data'];
  if (event.name !== 'purchase' || data?.orderId === undefined) return undefined;
  return {
    orderId: data.orderId,
    asOf: event.timestamp,
    fields: stated({
      orderDate: data.orderDate,
      value: data.value,
      currency: data.currency,
      sourceName: data.sourceName,
      tags: data.tags,
      paymentGateway: data.paymentGateway,
      financialStatus: data.financialStatus,
      items: itemsFromEvent(data.items),
      shippingCost: data.shippingCost,
      shippingCharged: data.shippingCharged,
      discounts: data.discounts,
      taxes: data.taxes,
    }),
    defaults: { orderDate: event.timestamp, financialStatus: 'paid' },
    refunds: data.refunds ?? [],
    customer: {
      emailHashes: event.user?.emailHashes ?? [],
      phoneHashes: event.user?.phoneHashes ?? [],
      userIds: event.user?.userIds ?? [],
    },
  };
}

/** What an exported order line says: true as of its `updatedAt`, or of the import when it has none. */
export function orderUpdateFromImport(line: OrderImport, importedAt: Date): OrderUpdate {
  return {
    orderId: line.orderId,
    asOf: line.updatedAt ?? importedAt.toISOString(),
    fields: stated({
      orderDate: line.orderDate,
      value: line.value,
      currency: line.currency,
      sourceName: line.sourceName,
      tags: line.tags,
      paymentGateway: line.paymentGateway,
      financialStatus: line.financialStatus,
      items: line.items,
      shippingCost: line.shippingCost,
      shippingCharged: line.shippingCharged,
      discounts: line.discounts,
      taxes: line.taxes,
    }),
    defaults: { financialStatus: 'paid' },
    refunds: line.refunds ?? [],
    customer: hashedCustomer(line.customer),
  };
}

/**
 * A purchase event's `data.items` as order items: `name` is the title when `title` is absent,
 * `id` the product id when `productId` is, a missing quantity is 1. The event vocabulary allows
 * what an order item does not (a negative price, an item without price): such a list is not a
 * statement about the order's items at all, so the order keeps what other sources said.
 */
function itemsFromEvent(items: NonNullable<TrackingEventInput['data']>['items']): OrderItem[] | undefined {
  if (items === undefined) return undefined;
  const mapped = items.map((item) =>
    Object.fromEntries(
      Object.entries({
        sku: item.sku || undefined,
        productId: item.productId ?? (item.id || undefined),
        variantId: item.variantId,
        title: item.title || item.name || undefined,
        quantity: item.quantity ?? 1,
        price: item.price,
        cost: item.cost,
      }).filter(([, value]) => value !== undefined),
    ),
  );
  const parsed = orderItemsSchema.safeParse(mapped);
  return parsed.success ? parsed.data : undefined;
}

function hashedCustomer(customer: CustomerIdentityInput | undefined): OrderUpdate['customer'] {
  return {
    emailHashes: hashAll(customer?.emails, normalizeEmail),
    phoneHashes: hashAll(customer?.phones, normalizePhone),
    userIds: [...new Set(customer?.userIds ?? [])],
  };
}

function stated(values: ReplaceableValues): ReplaceableValues {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as ReplaceableValues;
}
