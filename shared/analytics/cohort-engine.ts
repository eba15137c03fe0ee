import type { FxTable } from '../ads/fx-table';
import { findMeasure, type CohortMeasureId } from '../catalog/measures';
import { CostBook, costsOfOrder } from '../costs/order-costs';
import { evaluateFilter } from '../filters/evaluate-filter';
import type { Filter } from '../filters/filter-schema';
import { countsOrder, type CountingSettings, type MetCustomers } from '../orders/counting-rules';
import type { CohortGranularity } from '../schemas/query-cohort';
import { bucketIndex, bucketLabels, bucketsOf, type Bucket } from '../time/buckets';
import type { InstantRange } from '../time/date-range';
import { OrderMoney } from './order-money';
import { orderTimeOf, type QueryOrder } from './query-data';
import { measureDetail, rangeFigures, rounded, type MeasureDetail } from './measure-detail';
import { ORDER_FILTER_FIELDS } from './query-engine';
import { parseInstant } from '../time/iso-8601';

/**
 * The computation of POST /db-mgmt/api/query-cohort-analysis (definitions in the README, "Cohort
 * analysis"). A cohort is the customers whose first counted order over all stored history falls
 * in one `granularity` bucket of `dateRange` (and matches `filters`); period k of a cohort is the
 * k-th bucket after the cohort's own (k = 0 is the acquisition bucket). Per cohort and period it
 * sums the parts of every measure; per-customer measures are cumulative through k ÷ the cohort's
 * size, averages and shares are recomputed from the period's parts.
 */
export interface CohortSpec {
  measures: readonly CohortMeasureId[];
  granularity: CohortGranularity;
  periods: number;
  timezone: string;
  currency: string;
  filters?: Filter;
  orderSettings: CountingSettings;
}

interface PeriodParts {
  orders: number;
  revenue: number;
  refunds: number;
  cogs: number;
  otherCosts: number;
  active: Set<string>;
}

const newParts = (): PeriodParts => ({ orders: 0, revenue: 0, refunds: 0, cogs: 0, otherCosts: 0, active: new Set() });

interface Cohort {
  bucket: Bucket;
  members: Set<string>;
  periods: PeriodParts[];
}

/** The longest bucket of each granularity, to reach far enough past the window for every period. */
const LONGEST_BUCKET_MS: Record<CohortGranularity, number> = { week: 8 * 86_400_000, month: 32 * 86_400_000, year: 367 * 86_400_000 };

/**
 * Every instant an order of a cohort member can be reported at: from the window's start to past
 * the last cohort's last period (generously: a bucket's longest length per period), not after now.
 */
export function cohortHorizon(range: InstantRange, granularity: CohortGranularity, periods: number, now: number): InstantRange {
  return { start: range.start, end: Math.max(range.end, Math.min(now, range.end + (periods + 1) * LONGEST_BUCKET_MS[granularity])) };
}

const MONEY_MEASURES: ReadonlySet<CohortMeasureId> = new Set(['orders.ltv_cohort_gross_revenue', 'orders.ltv_cohort_net_revenue', 'orders.avg_order_value_cohort', 'orders.cohort_cm1', 'orders.cohort_cm2']);
const MARGIN_MEASURES: ReadonlySet<CohortMeasureId> = new Set(['orders.cohort_cm1', 'orders.cohort_cm2']);

export interface CohortPoint {
  dt: string;
  start: string;
  end: string;
  period: number;
  periodStart: string;
  periodEnd: string;
  complete: boolean;
  [measure: string]: string | number | boolean | null;
}

/**
 * `history` must hold every order of the cohort members placed from the window's start to the end
 * of the last period reported (cohortHorizon), `customers` each order's customer and each
 * customer's first counted order over all stored history (counting-rules.ts `metCustomers`).
 */
export function computeCohorts(
  spec: CohortSpec,
  range: InstantRange,
  history: readonly QueryOrder[],
  customers: MetCustomers,
  fx: FxTable,
  book: CostBook,
  now: number,
) {
  const cohortBuckets = bucketsOf(range, spec.granularity, spec.timezone)!;
  // One run of buckets from the first cohort's to the last cohort's last period; cohort i's
  // period k is series[i + k] (both runs start at the same bucket).
  const series = bucketsOf({ start: range.start, end: range.end + (spec.periods + 1) * LONGEST_BUCKET_MS[spec.granularity] }, spec.granularity, spec.timezone)!.slice(
    0,
    cohortBuckets.length + spec.periods,
  );
  const cohorts: Cohort[] = cohortBuckets.map((bucket) => ({ bucket, members: new Set(), periods: Array.from({ length: spec.periods + 1 }, newParts) }));
  const byId = new Map(history.map((order) => [order.orderId, order]));
  const cohortOf = new Map<string, number>();
  for (const [customer, firstOrderId] of customers.firstOrderOf) {
    const first = byId.get(firstOrderId);
    if (!first) continue;
    const at = orderTimeOf(first);
    if (at < range.start || at >= range.end) continue;
    if (spec.filters && !evaluateFilter(spec.filters, (field) => ORDER_FILTER_FIELDS[field]?.(first, 'new'))) continue;
    const index = bucketIndex(cohortBuckets, at);
    cohortOf.set(customer, index);
    cohorts[index]!.members.add(customer);
  }

  const money = new OrderMoney(fx, spec.currency);
  /** A cost amount without a rate fails only the margins. */
  let costFailure: string | undefined;
  const costed = spec.measures.includes('orders.cohort_cm1') || spec.measures.includes('orders.cohort_cm2');
  const byOrderDate = spec.orderSettings.refundDateAttribution === 'order_date';
  /** The period of cohort `index` holding `at`; -1 past the last period reported. */
  const periodOf = (index: number, at: number) => {
    if (at < series[index]!.start) return 0;
    const position = bucketIndex(series, at);
    return position < 0 || position - index > spec.periods ? -1 : position - index;
  };

  for (const order of history) {
    const customer = customers.customerOf(order);
    const index = cohortOf.get(customer);
    if (index === undefined || !countsOrder(order, spec.orderSettings)) continue;
    const cohort = cohorts[index]!;
    const period = periodOf(index, orderTimeOf(order));
    if (period >= 0) {
      const parts = cohort.periods[period]!;
      parts.orders += 1;
      parts.revenue += money.of(order, order.value ?? 0);
      parts.active.add(customer);
      if (costed) {
        const outcome = costsOfOrder(order, book, fx, spec.currency);
        if ('failure' in outcome) costFailure ??= outcome.failure;
        else {
          parts.cogs += outcome.costs.cogs;
          parts.otherCosts += outcome.costs.shipping + outcome.costs.paymentFees + outcome.costs.handlingFees;
        }
      }
      if (byOrderDate) parts.refunds += money.of(order, order.refunds.reduce((sum, refund) => sum + refund.amount, 0));
    }
    if (byOrderDate) continue;
    for (const refund of order.refunds) {
      const refundPeriod = periodOf(index, parseInstant(refund.processedAt));
      if (refundPeriod >= 0) cohort.periods[refundPeriod]!.refunds += money.of(order, refund.amount);
    }
  }

  const failureOf = (measure: CohortMeasureId) => (MONEY_MEASURES.has(measure) ? (money.failure ?? (MARGIN_MEASURES.has(measure) ? costFailure : undefined)) : undefined);
  const points: CohortPoint[] = [];
  /** Per cohort, the cumulative parts through each reported period, and the last complete one. */
  const finals: Array<{ cohort: Cohort; cumulative: PeriodParts; parts: PeriodParts }> = [];
  cohorts.forEach((cohort, index) => {
    if (cohort.bucket.start > now) return;
    const cumulative = newParts();
    let lastComplete: { cumulative: PeriodParts; parts: PeriodParts } | undefined;
    for (let period = 0; period <= spec.periods; period++) {
      const bucket = series[index + period]!;
      if (bucket.start > now) break;
      const parts = cohort.periods[period]!;
      cumulative.orders += parts.orders;
      cumulative.revenue += parts.revenue;
      cumulative.refunds += parts.refunds;
      cumulative.cogs += parts.cogs;
      cumulative.otherCosts += parts.otherCosts;
      const complete = bucket.end <= now;
      if (complete) lastComplete = { cumulative: { ...cumulative }, parts };
      const labels = bucketLabels(bucket, spec.timezone);
      const point: CohortPoint = { dt: cohort.bucket.dt, ...bucketLabels(cohort.bucket, spec.timezone), period, periodStart: labels.start, periodEnd: labels.end, complete };
      for (const measure of spec.measures) if (failureOf(measure) === undefined) point[measure] = rounded(valueOf(measure, cohort.members.size, cumulative, parts));
      points.push(point);
    }
    if (lastComplete) finals.push({ cohort, ...lastComplete });
  });

  const measureDetails: MeasureDetail[] = spec.measures.map((measure) => {
    const entry = findMeasure(measure)!;
    const reason = failureOf(measure);
    const size = finals.reduce((sum, { cohort }) => sum + cohort.members.size, 0);
    const total = finals.reduce((sum, { cumulative }) => addParts(sum, cumulative), newParts());
    const last = finals.reduce((sum, { parts }) => addParts(sum, parts), newParts());
    last.active = new Set(finals.flatMap(({ parts }) => [...parts.active]));
    const value = reason === undefined && finals.length > 0 ? valueOf(measure, size, total, last) : null;
    return measureDetail(measure, entry, reason, rangeFigures(entry, value, finals.length), undefined);
  });
  return { points, measureDetails };
}

function addParts(sum: PeriodParts, parts: PeriodParts): PeriodParts {
  return {
    orders: sum.orders + parts.orders,
    revenue: sum.revenue + parts.revenue,
    refunds: sum.refunds + parts.refunds,
    cogs: sum.cogs + parts.cogs,
    otherCosts: sum.otherCosts + parts.otherCosts,
    active: sum.active,
  };
}

const perCustomer = (amount: number, size: number) => (size === 0 ? null : amount / size);

/** One measure from a cohort's (or all cohorts') size, cumulative parts through k, and period k's own parts. */
function valueOf(measure: CohortMeasureId, size: number, cumulative: PeriodParts, period: PeriodParts): number | null {
  switch (measure) {
    case 'orders.customers_cohort':
      return size;
    case 'orders.ltv_cohort_gross_revenue':
      return perCustomer(cumulative.revenue, size);
    case 'orders.ltv_cohort_net_revenue':
      return perCustomer(cumulative.revenue - cumulative.refunds, size);
    case 'orders.avg_order_value_cohort':
      return period.orders === 0 ? null : period.revenue / period.orders;
    case 'orders.cohort_retention_percent':
      return size === 0 ? null : (period.active.size / size) * 100;
    case 'orders.cohort_cm1':
      return perCustomer(cumulative.revenue - cumulative.refunds - cumulative.cogs, size);
    case 'orders.cohort_cm2':
      return perCustomer(cumulative.revenue - cumulative.refunds - cumulative.cogs - cumulative.otherCosts, size);
  }
}

