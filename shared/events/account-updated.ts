import * as z from 'zod';

/**
 * The `accountUpdated` event detail: the contract with every EventBridge subscriber. The JSON
 * Schema published for subscribers (`schemas/events/account-updated.schema.json`) is generated
 * from this and a contract test keeps the two identical.
 */
export const ACCOUNT_UPDATED = 'accountUpdated';

export const accountUpdatedDetailSchema = z.strictObject({
  pixelId: z.string().min(1).describe('The pixel whose account settings changed.'),
  actor: z
    .string()
    .regex(/^cli:.+$/)
    .describe('Who made the change: "cli:<apiKeyPk>" for a change made with an API key.'),
  change: z
    .strictObject({ kind: z.enum(['orderSettings']).describe('Which part of the account changed.') })
    .describe('What changed.'),
  occurredAt: z.iso.datetime().describe('When the change was committed (ISO 8601, UTC).'),
});

export type AccountUpdatedDetail = z.output<typeof accountUpdatedDetailSchema>;
