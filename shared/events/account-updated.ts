import * as z from 'zod';

/**
 * The `accountUpdated` event detail: the contract with every EventBridge subscriber. The JSON
 * Schema published for subscribers (`schemas/events/account-updated.schema.json`) is generated
 * from this and a contract test keeps the two identical.
 */
export const ACCOUNT_UPDATED = 'accountUpdated';

export const accountUpdatedDetailSchema = z.strictObject({
  eventId: z
    .string()
    .min(1)
    .describe(
      'Stable id of this change, "<pixelId>:<change.kind>:<version>": the same on every delivery of the event, so subscribers deduplicate on it (delivery is at least once).',
    ),
  pixelId: z.string().min(1).describe('The pixel whose account settings changed.'),
  actor: z
    .string()
    .regex(/^cli:.+$/)
    .describe('Who made the change: "cli:<apiKeyPk>" for a change made with an API key.'),
  change: z
    .strictObject({
      kind: z
        .enum(['orderSettings', 'costSettings', 'account'])
        .describe('Which part of the account changed: the order settings, the cost settings, or the account itself (name, reporting time zone, currency).'),
    })
    .describe('What changed.'),
  occurredAt: z.iso.datetime().describe('When the change was committed (ISO 8601, UTC).'),
});

export type AccountUpdatedDetail = z.output<typeof accountUpdatedDetailSchema>;

/** One id per committed settings version: what subscribers deduplicate redeliveries on. */
export const accountUpdatedEventId = (pixelId: string, version: number, kind: AccountUpdatedDetail['change']['kind'] = 'orderSettings') =>
  `${pixelId}:${kind}:${version}`;
