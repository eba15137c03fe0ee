import * as z from 'zod/mini';
import './zod-mini';
import { currencySchema } from './query-fields';
import { timeZoneSchema } from './date-time';
import { displayName } from './display-name';

/**
 * The account of a pixel: its name, its reporting time zone and its reporting currency, what
 * dashboards show by; queries still default to UTC and USD.
 */
export const accountSchema = z.strictObject({
  name: z.nullable(z.string()),
  timezone: z.string(),
  currency: z.string(),
});
export type Account = z.output<typeof accountSchema>;

export const defaultAccount = (): Account => ({ name: null, timezone: 'UTC', currency: 'USD' });

/** PATCH /accounts/api/account: any of the three members, at least one; nothing else. */
export const accountPatchSchema = z
  .strictObject({
    name: z.optional(displayName),
    timezone: z.optional(timeZoneSchema),
    currency: z.optional(currencySchema),
  })
  .check(z.refine((patch) => Object.keys(patch).length > 0, { message: 'Give at least one of name, timezone, currency' }));
export type AccountPatch = z.output<typeof accountPatchSchema>;
