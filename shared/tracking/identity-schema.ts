import * as z from 'zod';
import { ORDER_LIMITS, problem } from '../orders/order-fields';
import { normalizeEmail, normalizePhone } from './identity';

/**
 * Identity of the end customer, as an event's `user` and an imported order's `customer` carry it.
 * Messages never echo the value: it is personal data, and error bodies end up in client logs.
 */
const email = z.string().refine((value) => normalizeEmail(value) !== undefined, problem('invalid_format', 'Must be an email address'));
const phone = z
  .string()
  .refine(
    (value) => normalizePhone(value) !== undefined,
    problem('invalid_format', 'Must be a phone number: 6 to 15 digits, optionally a leading +, spaces, dashes, dots or parentheses'),
  );

export const customerIdentitySchema = z.strictObject({
  emails: z.array(email).max(ORDER_LIMITS.identifiersPerKind).optional(),
  phones: z.array(phone).max(ORDER_LIMITS.identifiersPerKind).optional(),
  /** The merchant's own customer ids: opaque, kept as sent. */
  userIds: z.array(z.string().min(1).max(ORDER_LIMITS.textLength)).max(ORDER_LIMITS.identifiersPerKind).optional(),
});
export type CustomerIdentityInput = z.output<typeof customerIdentitySchema>;

/**
 * An event's `user`: the customer identity plus `anonymousId`, the pixel's first-party browser id
 * (a cookie value the merchant's site keeps). One per event, opaque, kept as sent, under the same
 * rules as a user id; orders have none, since only a browser has one.
 */
export const eventUserSchema = customerIdentitySchema.extend({
  anonymousId: z.string().min(1).max(ORDER_LIMITS.textLength).optional(),
});

/** What the store keeps of an identity: hashes, never the raw email or phone. */
export interface HashedIdentity {
  emailHashes: string[];
  phoneHashes: string[];
  userIds: string[];
}
