import { metCustomers } from '../orders/counting-rules';
import type { QueryCohortRequest } from '../schemas/query-cohort';
import { CostBook } from '../costs/order-costs';
import { cohortHorizon, computeCohorts } from './cohort-engine';
import { readModelSource, type QuerySource } from './query-service';

/**
 * POST /db-mgmt/api/query-cohort-analysis: reads the orders placed from the acquisition window's
 * start to past its last period, which hold every reported order of every cohort member. Who is new
 * comes from the customer digests those order facts carry (a customer is new at an order that
 * counts when none of the customer's earlier orders counts); only the customers of orders without
 * a usable digest have their whole stored history read. Then computes.
 */
export async function runCohortAnalysis(pixelId: string, request: QueryCohortRequest, source: QuerySource = readModelSource, now: number = Date.now()) {
  const costed = request.measures.includes('orders.cohort_cm1') || request.measures.includes('orders.cohort_cm2');
  const [placed, fx, costs] = await Promise.all([
    source.orderFacts(pixelId, cohortHorizon(request.range, request.granularity, request.periods, now), { refunded: false, costs: costed, customers: true }).then(({ placed }) => placed),
    source.fxTable(pixelId),
    costed ? source.costs(pixelId) : new CostBook(),
  ]);
  const undigested = placed.filter((order) => !order.customerDigest || order.customerDigest.earlier === null);
  const history = undigested.length > 0 ? await source.customerHistory(pixelId, undigested) : [];
  const customers = metCustomers(placed, history, request.orderSettings);
  const orders = history.length === 0 ? placed : [...new Map([...placed, ...history].map((order) => [order.orderId, order])).values()];
  const spec = {
    measures: request.measures,
    granularity: request.granularity,
    periods: request.periods,
    timezone: request.timezone,
    currency: request.currency,
    filters: request.filters,
    orderSettings: request.orderSettings,
  };
  const { points, measureDetails } = computeCohorts(spec, request.range, orders, customers, fx, costs, now);
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
