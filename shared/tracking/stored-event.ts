import * as z from 'zod';
import { isStandardEventName } from './event-names';
import type { TrackingEventInput } from './event-schema';
import { hashAll, normalizeEmail, normalizePhone } from './identity';
import { UTM_PARAMETERS, utmOf } from './utm';

/**
 * An event as the store keeps it and analytics reads it: identity hashed, time normalised to UTC
 * milliseconds, campaign parameters parsed out of the page URL. The schema documents the shape
 * and checks it in tests; bulk reads do not re-validate millions of stored events.
 */
const hashes = z.array(z.string().regex(/^[0-9a-f]{64}$/));
export const storedEventSchema = z.strictObject({
  eventId: z.string(),
  /** `client`: the caller's idempotency key; `server`: a ULID assigned at receipt. */
  eventIdSource: z.enum(['client', 'server']),
  name: z.string(),
  standard: z.boolean(),
  /** When it happened: the event's `timestamp`, or the receipt time when it had none. */
  timestamp: z.iso.datetime(),
  receivedAt: z.iso.datetime(),
  user: z
    .strictObject({ emailHashes: hashes.optional(), phoneHashes: hashes.optional(), userIds: z.array(z.string()).optional(), anonymousId: z.string().optional() })
    .optional(),
  ipAddress: z.string().optional(),
  page: z.strictObject({ url: z.string().optional(), referrer: z.string().optional(), title: z.string().optional() }).optional(),
  utm: z.partialRecord(z.enum(UTM_PARAMETERS), z.string()).optional(),
  click: z.strictObject({ fbc: z.string().optional(), fbp: z.string().optional(), gclid: z.string().optional(), ttclid: z.string().optional() }).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
});
export type StoredEvent = z.output<typeof storedEventSchema>;

export function toStoredEvent(
  input: TrackingEventInput,
  identity: { eventId: string; eventIdSource: StoredEvent['eventIdSource']; receivedAt: Date },
): StoredEvent {
  const event: StoredEvent = {
    eventId: identity.eventId,
    eventIdSource: identity.eventIdSource,
    name: input.name,
    standard: isStandardEventName(input.name),
    timestamp: input.timestamp ? new Date(input.timestamp).toISOString() : identity.receivedAt.toISOString(),
    receivedAt: identity.receivedAt.toISOString(),
  };
  const user = hashedUser(input.user);
  if (user) event.user = user;
  if (input.ipAddress) event.ipAddress = input.ipAddress;
  const page = withoutEmpty({ url: input.page?.url, referrer: input.page?.referrer || undefined, title: input.page?.title });
  if (page) event.page = page;
  const utm = utmOf(input.page?.url);
  if (utm) event.utm = utm;
  const click = withoutEmpty({ ...input.click });
  if (click) event.click = click;
  if (input.data && Object.keys(input.data).length > 0) event.data = input.data;
  return event;
}

function hashedUser(user: TrackingEventInput['user']): StoredEvent['user'] {
  if (!user) return undefined;
  const emailHashes = hashAll(user.emails, normalizeEmail);
  const phoneHashes = hashAll(user.phones, normalizePhone);
  const userIds = [...new Set(user.userIds ?? [])];
  return withoutEmpty({
    emailHashes: emailHashes.length > 0 ? emailHashes : undefined,
    phoneHashes: phoneHashes.length > 0 ? phoneHashes : undefined,
    userIds: userIds.length > 0 ? userIds : undefined,
    anonymousId: user.anonymousId,
  });
}

/**
 * The object without its undefined members, or undefined when nothing is left. A plain loop: it
 * runs three times per accepted event, on the request path.
 */
function withoutEmpty<T extends Record<string, unknown>>(value: T): T | undefined {
  let result: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || value[key] === undefined) continue;
    (result ??= {})[key] = value[key];
  }
  return result as T | undefined;
}
