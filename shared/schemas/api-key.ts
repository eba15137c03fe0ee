import * as z from 'zod';
import { SCOPES } from '../auth/scopes';

const rateLimitPolicy = z.object({
  quota: z.number().int().meta({ description: 'Requests per window (cost units for `cost`)' }),
  windowSeconds: z.number().int(),
  policy: z.string().meta({ description: 'The `RateLimit-Policy` field the answers carry, e.g. `"api";q=1200;w=60`' }),
});

/** GET /accounts/api/api-keys/me: what a key may learn about itself. Never its hash or hint. */
export const apiKeyDescriptionSchema = z.object({
  apiKeyPk: z.string().meta({ description: "The key's id: what `npm run keys -- revoke` takes and events name as the actor" }),
  pixelId: z.string(),
  name: z.string(),
  scopes: z.object({
    stored: z.array(z.string()).meta({ description: 'The names the key was minted with, legacy names included, as stored' }),
    granted: z.array(z.enum(SCOPES)).meta({ description: 'What they grant: legacy names and write scopes expanded, in catalog order' }),
  }),
  createdAt: z.iso.datetime({ offset: true }),
  expiresAt: z.iso.datetime({ offset: true }).nullable().meta({ description: '`null` for a key that never expires' }),
  rateLimits: z
    .object({ api: rateLimitPolicy, events: rateLimitPolicy, cost: rateLimitPolicy })
    .meta({ description: "The key's quotas as enforced: its own where it was minted with one, the defaults elsewhere" }),
});
export type ApiKeyDescription = z.output<typeof apiKeyDescriptionSchema>;
