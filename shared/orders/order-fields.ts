import * as z from 'zod';
import { isoInstantSchema } from '../schemas/date-time';

/**
 * The order vocabulary shared by purchase events (`data.*`) and the order import, so the two
 * sources describe an order in the same words and validate it the same way.
 */
export const FINANCIAL_STATUSES = ['paid', 'pending', 'voided', 'refunded', 'partially_refunded'] as const;
export type FinancialStatus = (typeof FINANCIAL_STATUSES)[number];

export const ORDER_LIMITS = {
  orderIdLength: 255,
  currencyLength: 10,
  textLength: 255,
  tags: 250,
  refundsPerUpdate: 100,
  identifiersPerKind: 10,
  items: 200,
} as const;

/** `custom` issues carry their problem code here; the events API reports it as `details[].code`. */
export const problem = (code: string, message: string) => ({ message, params: { code } });

/** The API's one date-time form (shared/schemas/date-time.ts): seconds and an offset required. */
export const isoDateTime = isoInstantSchema;

export const orderIdSchema = z.string().min(1).max(ORDER_LIMITS.orderIdLength);
export const moneySchema = z.number().min(0);
export const currencySchema = z.string().min(1).max(ORDER_LIMITS.currencyLength);
export const orderTextSchema = z.string().min(1).max(ORDER_LIMITS.textLength);
export const tagsSchema = z.array(z.string().min(1).max(ORDER_LIMITS.textLength)).max(ORDER_LIMITS.tags);
export const financialStatusSchema = z.enum(FINANCIAL_STATUSES);

export const refundSchema = z.strictObject({
  /** The platform's refund id, when it has one: it tells two equal refunds on one day apart. */
  id: z.string().min(1).max(ORDER_LIMITS.textLength).optional(),
  amount: moneySchema,
  processedAt: isoDateTime,
});
export type Refund = z.output<typeof refundSchema>;

/**
 * One line of an order (issue P9): what was sold, at what unit price, and optionally what one
 * unit cost the merchant. Amounts are in the order's currency.
 */
export const orderItemSchema = z.strictObject({
  sku: orderTextSchema.optional(),
  productId: orderTextSchema.optional(),
  variantId: orderTextSchema.optional(),
  title: z.string().min(1).max(1000).optional(),
  quantity: z.number().min(0).max(1_000_000),
  /** Unit price. */
  price: moneySchema,
  /** Unit cost; when absent, the SKU cost in effect on the order date or the default COGS percent applies. */
  cost: moneySchema.optional(),
});
export type OrderItem = z.output<typeof orderItemSchema>;

export const orderItemsSchema = z.array(orderItemSchema).max(ORDER_LIMITS.items);
