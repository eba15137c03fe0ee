import { DEMO_COST_SETTINGS, demoSkuCosts } from '../lib/local/demo-costs';
import { COHORT_MEASURE_IDS } from '../shared/catalog/measures';

/**
 * The cohort case of the query section (issue P9): on the same generated year, whose orders carry
 * items, with the demo merchant's cost settings and SKU costs.
 */
export const COHORT_ROUTE_ID = 'queryCohortAnalysis' as const;

export const cohortCases = [
  {
    id: 'cohort.month12x12',
    routeId: COHORT_ROUTE_ID,
    description: 'monthly cohorts over 12 months, 12 periods, all seven cohort measures (margins costed from items and SKU costs)',
    body: {
      granularity: 'month',
      measures: [...COHORT_MEASURE_IDS],
      dateRange: { start: '2025-12-01', end: '2026-11-23' },
      periods: 12,
      timezone: 'America/New_York',
    },
  },
] as const;

/** The demo merchant's cost settings and SKU costs, written for the bench pixel. */
export async function writeCostInputs(pixelId: string, end: Date): Promise<void> {
  // Imported only now: the repositories build their SDK client at import, after useLocalServices.
  const { saveCostSettings, loadCostSettings } = await import('../shared/store/cost-settings-repository');
  const { writeSkuCosts } = await import('../shared/analytics/store/sku-costs');
  await writeSkuCosts(pixelId, demoSkuCosts(end));
  await saveCostSettings(pixelId, DEMO_COST_SETTINGS, (await loadCostSettings(pixelId))?.version, end);
}
