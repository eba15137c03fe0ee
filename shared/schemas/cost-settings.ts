import * as z from 'zod/mini';
import './zod-mini';
import { isIsoDate } from '../time/iso-8601';
import { currencySchema } from './query-fields';

/**
 * Cost settings of a pixel (GET/PUT /accounts/api/costs/settings) and the per-SKU unit costs of
 * `npm run import-costs`. Bounds the spec leaves open are here and in the README.
 */
export const COST_LIMITS = { gatewayFees: 50, gatewayLength: 255, skuLength: 255, skuCostsPerFile: 100_000 } as const;

const amount = z.number().check(z.gte(0), z.lte(1_000_000_000));
const percent = z.number().check(z.gte(0), z.lte(100));

export const gatewayFeeSchema = z.strictObject({
  /** Matched to an order's `paymentGateway`, ignoring case and surrounding spaces. */
  gateway: z.string().check(z.trim(), z.minLength(1), z.maxLength(COST_LIMITS.gatewayLength)),
  /** Percent of the order's value (2.9 means 2.9 %). */
  percent,
  /** A fixed amount per order, in the settings' `currency`. */
  fixed: amount,
});

/** The PUT body: the complete settings, every member required (the PUT replaces the whole object). */
export const costSettingsInputSchema = z
  .strictObject({
    defaultCogsPercent: percent,
    handlingFeePerItem: amount,
    defaultShippingCostPerOrder: amount,
    gatewayFees: z.array(gatewayFeeSchema).check(z.maxLength(COST_LIMITS.gatewayFees)),
    currency: currencySchema,
  })
  .check(
    z.superRefine((settings, ctx) => {
      const seen = new Map<string, number>();
      settings.gatewayFees.forEach((fee, i) => {
        const key = gatewayKey(fee.gateway);
        const first = seen.get(key);
        if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['gatewayFees', i, 'gateway'], message: `Gateway '${fee.gateway}' is listed twice (also at gatewayFees[${first}]); gateways match ignoring case` });
        else seen.set(key, i);
      });
    }),
  );
export type CostSettings = z.output<typeof costSettingsInputSchema>;

/** How an order's `paymentGateway` and a fee's `gateway` are compared. */
export const gatewayKey = (gateway: string) => gateway.trim().toLowerCase();

/** What a pixel has before anyone sets anything: every cost zero, amounts in USD. */
export function defaultCostSettings(): CostSettings {
  return { defaultCogsPercent: 0, handlingFeePerItem: 0, defaultShippingCostPerOrder: 0, gatewayFees: [], currency: 'USD' };
}

const isoDate = z.string().check(z.refine(isIsoDate, { message: 'Must be a date, YYYY-MM-DD' }));

/**
 * One line of a SKU cost file: the unit cost of `sku` from `effectiveFrom` through `effectiveTo`
 * (both inclusive UTC dates; open-ended without `effectiveTo`), in `currency`.
 */
export const skuCostSchema = z
  .strictObject({
    sku: z.string().check(z.minLength(1), z.maxLength(COST_LIMITS.skuLength)),
    cost: amount,
    currency: currencySchema,
    effectiveFrom: isoDate,
    effectiveTo: z.optional(isoDate),
  })
  .check(
    z.refine((line) => line.effectiveTo === undefined || line.effectiveTo >= line.effectiveFrom, {
      path: ['effectiveTo'],
      message: 'effectiveTo must not be before effectiveFrom',
    }),
  );
export type SkuCost = z.output<typeof skuCostSchema>;
