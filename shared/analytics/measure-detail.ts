import { roundForOutput } from '../ads/ad-series';
import type { MeasureCatalogEntry } from '../catalog/measures';

/** `measureDetails[]` of the public service's envelope: one measure over a whole range (query, attribution, cohorts). */
export interface MeasureDetail {
  measure: string;
  success: boolean;
  reason?: string;
  isAverage: boolean;
  isPercentage: boolean;
  calculatedAverage: boolean;
  primarySum: number | null;
  compareSum: number | null;
  primaryAvg: number | null;
  compareAvg: number | null;
  percentDiff: number | null;
  hasPacing: boolean;
  preferredTrendDirection: 'up' | 'down';
}

export const rounded = (value: number | null) => (value === null ? null : roundForOutput(value));

/** A measure's figures over a range of `bucketCount` buckets: `sum` over the whole range, and its average per bucket (an average measure is its own average). */
export function rangeFigures(entry: Pick<MeasureCatalogEntry, 'isAverage'>, sum: number | null, bucketCount: number): { sum: number | null; average: number | null } {
  return { sum, average: sum === null ? null : entry.isAverage ? sum : sum / bucketCount };
}

/**
 * One measure's detail from its totals: `sum` over the whole range (ratios and distinct counts
 * recomputed by the caller, never summed from buckets) and `average` per bucket. A measure that
 * failed (`reason`) reports no figures. `percentDiff` is (primary − compare) ÷ |compare| × 100,
 * null when compare is 0 or absent.
 */
export function measureDetail(
  measure: string,
  entry: Pick<MeasureCatalogEntry, 'isAverage' | 'isPercentage' | 'preferredTrendDirection'>,
  reason: string | undefined,
  primary: { sum: number | null; average: number | null },
  compare: { sum: number | null; average: number | null } | undefined,
): MeasureDetail {
  const failed = reason !== undefined;
  const primarySum = failed ? null : primary.sum;
  const compareSum = failed || !compare ? null : compare.sum;
  return {
    measure,
    success: !failed,
    ...(failed ? { reason } : {}),
    isAverage: entry.isAverage,
    isPercentage: entry.isPercentage,
    calculatedAverage: entry.isAverage,
    primarySum: rounded(primarySum),
    compareSum: rounded(compareSum),
    primaryAvg: rounded(failed ? null : primary.average),
    compareAvg: rounded(failed || !compare ? null : compare.average),
    percentDiff: primarySum === null || compareSum === null || compareSum === 0 ? null : rounded(((primarySum - compareSum) / Math.abs(compareSum)) * 100),
    hasPacing: false,
    preferredTrendDirection: entry.preferredTrendDirection,
  };
}
