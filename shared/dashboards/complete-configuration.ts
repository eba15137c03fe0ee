import { randomUUID } from 'node:crypto';
import { addDays } from '../time/zoned-time';
import {
  CONFIGURATION_DEFAULTS,
  type ConfigurationInput,
  type DashboardViewConfiguration,
  type DateRange,
  type Section,
  type Widget,
} from '../schemas/dashboard-view';

/** The default date range: the last 30 days, ending on the request's UTC date, as the CLI builds it. */
export function defaultDateRange(requestTime: Date): DateRange {
  const end = requestTime.toISOString().slice(0, 10);
  return { start: addDays(end, 1 - CONFIGURATION_DEFAULTS.dateRangeDays), end };
}

/**
 * Turns a validated configuration into the one stored: ids the client left out are assigned,
 * section ordinals default to their position, and the date range is filled from the request
 * time. Members normalised away (a `{}` filter) are dropped so that they are not stored as null.
 */
export function completeConfiguration(input: ConfigurationInput, requestTime: Date): DashboardViewConfiguration {
  const withId = <T extends { id?: string | undefined }>(element: T) => ({ ...element, id: element.id ?? randomUUID() });
  const widget = (w: ConfigurationInput['widgets'][number]): Widget => withId(w);
  const sections: Section[] = input.sections.map((section, i) => ({
    ...withId(section),
    ordinal: section.ordinal ?? i,
    widgets: section.widgets.map(widget),
  }));
  return withoutUndefined({
    ...input,
    dateRange: input.dateRange ?? defaultDateRange(requestTime),
    widgets: input.widgets.map(widget),
    sections,
  });
}

function withoutUndefined<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
