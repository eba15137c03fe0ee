import { AdFactsImport } from '../../shared/analytics/store/ad-facts';
import { writeSkuCosts } from '../../shared/analytics/store/sku-costs';
import { DEMO_DEFAULTS, generateDemoAds, generateDemoFxRates } from './demo-ads';
import { seedDemoOrdersAndEvents } from './demo-query-seed';
import { DEMO_COST_SETTINGS, demoSkuCosts } from './demo-costs';
import { loadCostSettings, saveCostSettings } from '../../shared/store/cost-settings-repository';

export const DEMO_PIXEL_ID = 'px_demo';

/**
 * One part of the demo data a first start stores. A step may run more than once (a first start
 * that was interrupted is redone on the next start), so it must be idempotent: given the same
 * clock it stores the same data, overwriting whatever an earlier, unfinished run left.
 */
export interface SeedStep {
  /** What it adds, for the first-start message: "60 ads (90 days of hourly metrics)". */
  description: string;
  /** `clock` is the first start's own time, kept across a redo so the data comes out the same. */
  run(pixelId: string, clock: Date): Promise<void>;
}

const demoOptions = (clock: Date) => ({ ...DEMO_DEFAULTS, end: clock });

/**
 * The demo pixel's data, in order. The ads and rates are stored as one import, as
 * `npm run import-ads` stores a file: running a step again is a later import of the same rows,
 * which the read rule makes supersede the earlier one, so the answers are the same.
 */
export const demoSeedSteps: readonly SeedStep[] = [
  {
    description: `daily exchange rates, ${DEMO_DEFAULTS.ads} ads (${DEMO_DEFAULTS.days} days of hourly metrics)`,
    run: async (pixelId, clock) => {
      const writer = new AdFactsImport(pixelId);
      try {
        await writer.addFxRates(generateDemoFxRates(demoOptions(clock)));
        for (const ad of generateDemoAds(demoOptions(clock))) await writer.addAd(ad);
        await writer.finish();
      } finally {
        await writer.discard();
      }
    },
  },
  {
    description: 'cost settings and SKU costs',
    run: async (pixelId, clock) => {
      await writeSkuCosts(pixelId, demoSkuCosts(clock));
      // Stored without an accountUpdated event: nobody changed the account, it was born with these.
      const current = await loadCostSettings(pixelId);
      if (JSON.stringify(current?.settings) !== JSON.stringify(DEMO_COST_SETTINGS)) await saveCostSettings(pixelId, DEMO_COST_SETTINGS, current?.version, clock);
    },
  },
  {
    description: `${DEMO_DEFAULTS.days} days of orders and the pixel events around them`,
    run: async (pixelId, clock) => {
      await seedDemoOrdersAndEvents(pixelId, clock);
    },
  },
];
