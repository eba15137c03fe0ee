/** Summary statistics for timing samples. Percentiles are nearest-rank, so every reported value was actually observed. */
export function percentile(sortedAscending: readonly number[], percent: number): number {
  if (sortedAscending.length === 0) throw new Error('percentile of an empty sample');
  const rank = Math.max(1, Math.ceil((percent / 100) * sortedAscending.length));
  return sortedAscending[rank - 1] as number;
}

export interface SampleSummary {
  count: number;
  min: number;
  max: number;
  mean: number;
  median: number;
  p99: number;
}

export function summarize(samples: readonly number[]): SampleSummary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: sorted.length,
    min: percentile(sorted, 0),
    max: percentile(sorted, 100),
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    median: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}

/** Microsecond precision is all a millisecond timer on a shared VM can honestly claim. */
export const roundMs = (ms: number): number => Math.round(ms * 1000) / 1000;
