import { REPLACEABLE_FIELDS, type Order, type OrderUpdate, type Refund, type ReplaceableField } from './order';

/**
 * When each field was last stated, by the stated source's own time. A field that only holds a
 * default is marked `DEFAULTED`: any stated value replaces it, whatever its time.
 */
export type FieldTimes = Partial<Record<ReplaceableField | 'refunds', string>>;
export const DEFAULTED = '';

export interface OrderState {
  order: Order;
  fieldTimes: FieldTimes;
}

/** Identifiers accumulate from many events; a bound keeps one abusive client from growing an item past 400 KB. */
export const MAX_IDENTIFIERS_PER_KIND = 50;
export const MAX_REFUNDS = 1000;

/**
 * Applies one source's statement to an order (see `OrderUpdate`). The merge never loses what an
 * earlier source said unless a source at least as recent said otherwise, so:
 * - it is idempotent: applying the same update twice is applying it once (retries are harmless);
 * - late or replayed deliveries cannot roll a field back: a `paid` purchase event retried after a
 *   `refunded` one leaves the order refunded;
 * - an absent field keeps its stored value, and refunds and identifiers are only ever added.
 */
export function mergeOrder(current: OrderState | undefined, update: OrderUpdate, now: Date): OrderState {
  const asOf = new Date(update.asOf).toISOString();
  const order: Order = current ? { ...current.order } : blankOrder(update, asOf, now);
  const fieldTimes: FieldTimes = current ? { ...current.fieldTimes } : {};

  for (const field of REPLACEABLE_FIELDS) {
    const stated = update.fields[field];
    const storedAt = fieldTimes[field];
    if (stated !== undefined) {
      if (storedAt === undefined || storedAt === DEFAULTED || asOf >= storedAt) {
        assign(order, field, field === 'orderDate' ? new Date(stated as string).toISOString() : stated);
        fieldTimes[field] = asOf;
      }
    } else if (storedAt === undefined || storedAt === DEFAULTED) {
      const implied = impliedValue(update, field);
      // Between two implied order dates the earlier is kept: an order is placed no later than
      // the first event about it, and the result does not depend on arrival order.
      if (implied !== undefined && (storedAt === undefined || (field === 'orderDate' && (implied as string) < order.orderDate))) {
        assign(order, field, implied);
        fieldTimes[field] = DEFAULTED;
      }
    }
  }

  if (update.refunds.length > 0) {
    const replace = fieldTimes.refunds === undefined || asOf >= fieldTimes.refunds;
    order.refunds = mergeRefunds(order.refunds, update.refunds, replace);
    if (replace) fieldTimes.refunds = asOf;
  }
  order.customer = {
    emailHashes: union(order.customer.emailHashes, update.customer.emailHashes),
    phoneHashes: union(order.customer.phoneHashes, update.customer.phoneHashes),
    userIds: union(order.customer.userIds, update.customer.userIds),
  };
  return { order, fieldTimes };
}

function impliedValue(update: OrderUpdate, field: ReplaceableField): unknown {
  if (field === 'orderDate') return update.defaults.orderDate === undefined ? undefined : new Date(update.defaults.orderDate).toISOString();
  if (field === 'financialStatus') return update.defaults.financialStatus;
  return undefined;
}

/** Every field the exclusion filters read is present from the start (null or [] until stated). */
function blankOrder(update: OrderUpdate, asOf: string, now: Date): Order {
  return {
    orderId: update.orderId,
    // Overwritten by the merge: every update states or implies an order date.
    orderDate: asOf,
    value: null,
    currency: null,
    sourceName: null,
    tags: [],
    paymentGateway: null,
    financialStatus: 'paid',
    refunds: [],
    customer: { emailHashes: [], phoneHashes: [], userIds: [] },
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  };
}

function assign<F extends ReplaceableField>(order: Order, field: F, value: unknown): void {
  order[field] = value as Order[F];
}

/** A refund is the same refund when its platform id matches, or, without ids, its time and amount. */
function refundKey(refund: Refund): string {
  return refund.id !== undefined ? `id:${refund.id}` : `at:${new Date(refund.processedAt).toISOString()}|${refund.amount}`;
}

function mergeRefunds(stored: readonly Refund[], stated: readonly Refund[], replaceKnown: boolean): Refund[] {
  const byKey = new Map(stored.map((refund) => [refundKey(refund), refund]));
  for (const refund of stated) {
    const normal = { ...refund, processedAt: new Date(refund.processedAt).toISOString() };
    const key = refundKey(normal);
    if (byKey.has(key) ? replaceKnown : byKey.size < MAX_REFUNDS) byKey.set(key, normal);
  }
  return [...byKey.values()].sort((a, b) => a.processedAt.localeCompare(b.processedAt) || refundKey(a).localeCompare(refundKey(b)));
}

function union(stored: readonly string[], stated: readonly string[]): string[] {
  const merged = [...stored];
  for (const value of stated) {
    if (merged.length >= MAX_IDENTIFIERS_PER_KIND) break;
    if (!merged.includes(value)) merged.push(value);
  }
  return merged;
}
