import * as z from 'zod/mini';
import { described } from '../schemas/zod-mini';

/**
 * The `accountUpdated` event detail: the contract with every EventBridge subscriber. The JSON
 * Schema published for subscribers (`schemas/events/account-updated.schema.json`) is generated
 * from this and a contract test keeps the two identical.
 */
export const ACCOUNT_UPDATED = 'accountUpdated';

export const accountUpdatedDetailSchema = z.strictObject({
  eventId: described(
    z.string().check(z.minLength(1)),
    'Stable id of this change, "<pixelId>:<change.kind>:<version>": the same on every delivery of the event, so subscribers deduplicate on it (delivery is at least once).',
  ),
  pixelId: described(z.string().check(z.minLength(1)), 'The pixel whose account settings changed.'),
  actor: described(z.string().check(z.regex(/^cli:.+$/)), 'Who made the change: "cli:<apiKeyPk>" for a change made with an API key.'),
  change: described(
    z.strictObject({
      kind: described(
        z.enum(['orderSettings', 'costSettings', 'account']),
        'Which part of the account changed: the order settings, the cost settings, or the account itself (name, reporting time zone, currency).',
      ),
    }),
    'What changed.',
  ),
  occurredAt: described(z.iso.datetime(), 'When the change was committed (ISO 8601, UTC).'),
});

export type AccountUpdatedDetail = z.output<typeof accountUpdatedDetailSchema>;

/** One id per committed settings version: what subscribers deduplicate redeliveries on. */
export const accountUpdatedEventId = (pixelId: string, version: number, kind: AccountUpdatedDetail['change']['kind'] = 'orderSettings') =>
  `${pixelId}:${kind}:${version}`;
