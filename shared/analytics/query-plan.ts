import type { InstantRange } from '../time/date-range';
import { offsetMinutesAt } from '../time/zoned-time';
import type { QuerySpec } from './query-engine';

const HOUR_MS = 3_600_000;
/** The measures that count people: they need every event with its identities, not counts. */
export const PEOPLE_MEASURES: readonly string[] = ['events.visitors', 'events.conversion_rate'];

/**
 * Whether the hourly event rollups answer a range exactly: no measure counts people, buckets are
 * whole UTC hours (hours, days and longer, in a zone whose offset over the range is whole hours),
 * and the range starts and ends on a UTC hour. Otherwise the query reads every event of the range.
 */
export function countsSuffice(spec: Pick<QuerySpec, 'measures' | 'granularity' | 'timezone'>, range: InstantRange): boolean {
  if (spec.measures.some((measure) => PEOPLE_MEASURES.includes(measure))) return false;
  if (spec.granularity === 'minute' || spec.granularity === 'second') return false;
  if (range.start % HOUR_MS !== 0 || range.end % HOUR_MS !== 0) return false;
  // Offsets change at most twice a year; checking each day's start catches any non-hour offset.
  for (let at = range.start; at < range.end; at += 86_400_000) if (offsetMinutesAt(at, spec.timezone) % 60 !== 0) return false;
  return offsetMinutesAt(range.end - 1, spec.timezone) % 60 === 0;
}
