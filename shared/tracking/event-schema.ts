import { isIP } from 'node:net';
import * as z from 'zod';
import {
  currencySchema,
  financialStatusSchema,
  isoDateTime,
  moneySchema,
  orderIdSchema,
  orderTextSchema,
  ORDER_LIMITS,
  problem,
  refundSchema,
  tagsSchema,
} from '../orders/order-fields';
import { eventUserSchema } from './identity-schema';
import { EVENT_LIMITS } from './event-limits';
import { EVENT_NAME_MAX_LENGTH, EVENT_NAME_PATTERN } from './event-names';

export { EVENT_LIMITS };

/** JSON's scalar values. JSON has no NaN or Infinity, but a direct invocation could. */
export function isPrimitive(value: unknown): boolean {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

const NESTED_VALUE = problem('nested_value', 'Must be a string, number, boolean, null, or a flat array of those (no objects, no nested arrays)');

/** A custom key's value: a primitive or a flat array of primitives, so analytics can filter and group on it. */
const customValue = z.unknown().superRefine((value, ctx) => {
  if (isPrimitive(value)) return;
  if (Array.isArray(value) && value.every(isPrimitive)) {
    if (value.length > EVENT_LIMITS.customArrayItems) {
      ctx.addIssue({ code: 'custom', ...problem('too_long', `Must have at most ${EVENT_LIMITS.customArrayItems} elements`) });
    }
    return;
  }
  ctx.addIssue({ code: 'custom', ...NESTED_VALUE });
});

const absoluteUrl = (max: number, message: string, accepts: (url: URL) => boolean) =>
  z
    .string()
    .max(max)
    .refine((value) => {
      if (!URL.canParse(value)) return false;
      return accepts(new URL(value));
    }, problem('invalid_format', message));

/** Item properties of the pixel's items vocabulary; other keys are custom and flat. */
const itemSchema = z
  .object({
    id: z.string().max(ORDER_LIMITS.textLength).optional(),
    sku: z.string().max(ORDER_LIMITS.textLength).optional(),
    name: z.string().max(1000).optional(),
    brand: z.string().max(1000).optional(),
    category: z.string().max(1000).optional(),
    variant: z.string().max(1000).optional(),
    price: z.number().optional(),
    quantity: z.number().min(0).optional(),
    value: z.number().optional(),
    discount: z.number().optional(),
    currency: currencySchema.optional(),
    // The order-item words of the order import (issue P9), so a purchase event can carry costs.
    productId: orderTextSchema.optional(),
    variantId: orderTextSchema.optional(),
    title: z.string().max(1000).optional(),
    cost: moneySchema.optional(),
  })
  .catchall(customValue);

/**
 * `data`: the standard keys have fixed types (the order keys are the same words the order import
 * uses); every other key is custom, with a flat value.
 */
const eventDataSchema = z
  .object({
    orderId: orderIdSchema.optional(),
    value: moneySchema.optional(),
    currency: currencySchema.optional(),
    items: z.array(itemSchema).max(EVENT_LIMITS.items).optional(),
    orderDate: z.optional(isoDateTime),
    sourceName: orderTextSchema.optional(),
    tags: tagsSchema.optional(),
    paymentGateway: orderTextSchema.optional(),
    financialStatus: financialStatusSchema.optional(),
    refunds: z.array(refundSchema).max(ORDER_LIMITS.refundsPerUpdate).optional(),
    shippingCost: moneySchema.optional(),
    shippingCharged: moneySchema.optional(),
    discounts: moneySchema.optional(),
    taxes: moneySchema.optional(),
  })
  .catchall(customValue);

const clickId = z.string().min(1).max(EVENT_LIMITS.clickIdLength).optional();

export const trackingEventSchema = z.strictObject({
  name: z
    .string()
    .max(EVENT_NAME_MAX_LENGTH)
    .regex(EVENT_NAME_PATTERN, { error: 'Must start with a letter and hold only letters, digits and underscores' }),
  /** The client's idempotency key: printable ASCII without spaces, so it is safe in keys and logs. */
  eventId: z
    .string()
    .min(1)
    .max(EVENT_LIMITS.eventIdLength)
    .regex(/^[\x21-\x7E]+$/, { error: 'Must be printable ASCII without spaces' })
    .optional(),
  timestamp: z.optional(isoDateTime),
  user: eventUserSchema.optional(),
  ipAddress: z.string().refine((value) => isIP(value) !== 0, problem('invalid_format', 'Must be an IPv4 or IPv6 address')).optional(),
  page: z
    .strictObject({
      url: absoluteUrl(EVENT_LIMITS.urlLength, 'Must be an absolute http(s) URL', (url) => url.protocol === 'http:' || url.protocol === 'https:').optional(),
      // document.referrer is "" when there is none; that is accepted and means no referrer.
      referrer: z
        .string()
        .max(EVENT_LIMITS.urlLength)
        .refine((value) => value === '' || URL.canParse(value), problem('invalid_format', 'Must be an absolute URL or ""'))
        .optional(),
      title: z.string().max(EVENT_LIMITS.titleLength).optional(),
    })
    .optional(),
  click: z.strictObject({ fbc: clickId, fbp: clickId, gclid: clickId, ttclid: clickId }).optional(),
  data: eventDataSchema.optional(),
});
export type TrackingEventInput = z.output<typeof trackingEventSchema>;

/** A body may name its pixel; when it does, it must be the header's (checked before validation). */
const pixelId = z.string().optional();

export const batchBodySchema = z.strictObject({
  pixelId,
  events: z.array(trackingEventSchema).min(EVENT_LIMITS.batchMin).max(EVENT_LIMITS.batchMax),
});

export const singleBodySchema = trackingEventSchema.extend({ pixelId });
