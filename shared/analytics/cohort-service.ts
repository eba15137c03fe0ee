import { firstCountedOrders } from '../orders/counting-rules';
import type { QueryCohortRequest } from '../schemas/query-cohort';
import { CostBook } from '../costs/order-costs';
import { computeCohorts } from './cohort-engine';
import { readModelSource, type QuerySource } from './query-service';

/**
 * POST /db-mgmt/api/query-cohort-analysis: reads the orders placed in the acquisition window, then
 * the whole stored history of their customers (which holds every later order of every cohort
 * member, and any earlier counted order that makes a customer not new), and computes.
 */
export async function runCohortAnalysis(pixelId: string, request: QueryCohortRequest, source: QuerySource = readModelSource, now: number = Date.now()) {
  const costed = request.measures.includes('orders.cohort_cm1') || request.measures.includes('orders.cohort_cm2');
  const [placed, fx, costs] = await Promise.all([
    source.ordersPlaced(pixelId, request.range),
    source.fxTable(pixelId),
    costed ? source.costs(pixelId) : new CostBook(),
  ]);
  const history = await source.customerHistory(pixelId, placed);
  const customers = firstCountedOrders(history, request.orderSettings);
  const spec = {
    measures: request.measures,
    granularity: request.granularity,
    periods: request.periods,
    timezone: request.timezone,
    currency: request.currency,
    filters: request.filters,
    orderSettings: request.orderSettings,
  };
  const { points, measureDetails } = computeCohorts(spec, request.range, history, customers, fx, costs, now);
  return {
    results: [
      {
        granularity: request.granularity,
        dimensions: [],
        dateRange: request.dateRange,
        compareDateRange: null,
        timezone: request.timezone,
        currency: request.currency,
        periods: request.periods,
        measureDetails,
        data: { primary: points, compare: [] },
      },
    ],
  };
}
