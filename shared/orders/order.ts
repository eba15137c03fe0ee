import * as z from 'zod';
import { customerIdentitySchema } from '../tracking/identity-schema';
import {
  currencySchema,
  financialStatusSchema,
  FINANCIAL_STATUSES,
  isoDateTime,
  moneySchema,
  orderIdSchema,
  orderItemsSchema,
  orderTextSchema,
  refundSchema,
  tagsSchema,
  type FinancialStatus,
  type OrderItem,
  type Refund,
} from './order-fields';

/**
 * An order as the store keeps it. Every field the exclusion filters read (spec 2.4: `sourceName`,
 * `tags`, `value`, `paymentGateway`) is always present: `null` (or `[]` for tags) when no source
 * has told us, so a filter evaluates against a known shape.
 */
export const orderSchema = z.strictObject({
  orderId: z.string(),
  /** When the order was placed (UTC, ISO 8601 with milliseconds). */
  orderDate: z.iso.datetime(),
  value: z.number().nullable(),
  currency: z.string().nullable(),
  sourceName: z.string().nullable(),
  tags: z.array(z.string()),
  paymentGateway: z.string().nullable(),
  financialStatus: z.enum(FINANCIAL_STATUSES),
  /** Sorted by `processedAt`. */
  refunds: z.array(refundSchema),
  customer: z.strictObject({ emailHashes: z.array(z.string()), phoneHashes: z.array(z.string()), userIds: z.array(z.string()) }),
  /**
   * Cost inputs (issue P9), in the order's currency; absent until a source states them, so orders
   * stored before they existed read the same.
   */
  items: orderItemsSchema.optional(),
  shippingCost: z.number().optional(),
  shippingCharged: z.number().optional(),
  discounts: z.number().optional(),
  taxes: z.number().optional(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type Order = z.output<typeof orderSchema>;

/** The fields a newer source replaces (last writer wins, per field, by the source's own time). */
export const REPLACEABLE_FIELDS = [
  'orderDate',
  'value',
  'currency',
  'sourceName',
  'tags',
  'paymentGateway',
  'financialStatus',
  // A source that states items states the whole list: the latest such source's list is the order's.
  'items',
  'shippingCost',
  'shippingCharged',
  'discounts',
  'taxes',
] as const;
export type ReplaceableField = (typeof REPLACEABLE_FIELDS)[number];
export type ReplaceableValues = Partial<Pick<Order, ReplaceableField>>;

/**
 * One source's statement about an order: a purchase event or an imported line.
 * - `fields`: values the source states; each replaces the stored one unless the stored one came
 *   from a source with a later `asOf`.
 * - `defaults`: values the source only implies (a purchase event's own time as the order date,
 *   `paid` as its status); they fill a field nobody has stated and never replace a stated value
 *   (of two implied order dates, the earlier is kept).
 * - `refunds` and `customer` identifiers accumulate: they are never removed by a later source.
 */
export interface OrderUpdate {
  orderId: string;
  /** ISO instant the source's statement was true (event timestamp, export's `updatedAt`). */
  asOf: string;
  fields: ReplaceableValues;
  defaults: Pick<ReplaceableValues, 'orderDate' | 'financialStatus'>;
  refunds: Refund[];
  customer: { emailHashes: string[]; phoneHashes: string[]; userIds: string[] };
}

/**
 * One line of an order export (`npm run import-orders`): the order words of a purchase event's
 * `data`, with the customer in the shape of an event's `user`.
 */
export const orderImportSchema = z.strictObject({
  orderId: orderIdSchema,
  orderDate: isoDateTime,
  value: moneySchema,
  currency: currencySchema,
  sourceName: orderTextSchema.optional(),
  tags: tagsSchema.optional(),
  paymentGateway: orderTextSchema.optional(),
  financialStatus: financialStatusSchema.optional(),
  refunds: z.array(refundSchema).max(1000).optional(),
  customer: customerIdentitySchema.optional(),
  items: orderItemsSchema.optional(),
  shippingCost: moneySchema.optional(),
  shippingCharged: moneySchema.optional(),
  discounts: moneySchema.optional(),
  taxes: moneySchema.optional(),
  /** When the export's state of the order was current; the import time when absent. */
  updatedAt: z.optional(isoDateTime),
});
export type OrderImport = z.output<typeof orderImportSchema>;

export type { FinancialStatus, OrderItem, Refund };
