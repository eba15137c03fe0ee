import fc from 'fast-check';
import { MEASURES } from '../../shared/catalog/measures';
import { ATTRIBUTION_MODELS, ATTRIBUTION_WINDOWS, CHART_TYPES, GRANULARITIES } from '../../shared/schemas/dashboard-view';
import { filterTree, grammarCondition } from './filter-fixtures';
import { validName } from './order-settings-fixtures';

/** A small valid widget to start each example from. */
export function validWidget(overrides: Record<string, unknown> = {}) {
  return {
    title: 'Spend',
    chartType: 'line',
    layout: { x: 0, y: 0, columns: 6, rows: 2 },
    dataConfig: { measures: ['channel.spend'] },
    ...overrides,
  };
}

/** A valid configuration using every member once. */
export function validConfiguration(overrides: Record<string, unknown> = {}) {
  return {
    dateRange: { start: '2026-03-01', end: '2026-03-31' },
    granularity: 'day',
    attributionModel: 'last_click',
    attributionWindow: 7,
    grid: { maxWidth: 1200 },
    widgets: [validWidget()],
    sections: [
      {
        title: 'Pinned',
        widgets: [validWidget({ title: 'ROAS', chartType: 'kpi', dataConfig: { measures: ['channel.roas'] } })],
        settings: { pacing: true, theme: 'dark', backgroundColor: '#f5f5f5' },
      },
    ],
    filters: { field: 'channel.resource_source', op: 'equals', value: 'metaIntegration' },
    ...overrides,
  };
}

export function validCreateBody(overrides: Record<string, unknown> = {}) {
  return { name: 'Marketing overview', configuration: validConfiguration(), ...overrides };
}

const MEASURE_IDS = MEASURES.filter((measure) => measure.contexts.includes('dashboards')).map((measure) => measure.id);
const elementId = fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/);
const date = fc.integer({ min: 0, max: 3_000 }).map((days) => new Date(Date.UTC(2024, 0, 1 + days)).toISOString().slice(0, 10));
const filter = filterTree(grammarCondition, 2);

const layout = fc
  .record({ x: fc.integer({ min: 0, max: 11 }), y: fc.integer({ min: 0, max: 100 }), rows: fc.integer({ min: 1, max: 24 }) })
  .chain(({ x, y, rows }) =>
    fc.integer({ min: 1, max: 12 - x }).chain((columns) =>
      fc.record(
        {
          x: fc.constant(x),
          y: fc.constant(y),
          columns: fc.constant(columns),
          rows: fc.constant(rows),
          minColumns: fc.integer({ min: 1, max: columns }),
          maxColumns: fc.integer({ min: columns, max: 12 }),
          minRows: fc.integer({ min: 1, max: rows }),
          maxRows: fc.integer({ min: rows, max: 24 }),
          static: fc.boolean(),
        },
        { requiredKeys: ['x', 'y', 'columns', 'rows'] },
      ),
    ),
  );

const widget = fc.record(
  {
    title: validName,
    chartType: fc.constantFrom(...CHART_TYPES),
    layout,
    dataConfig: fc.record(
      {
        measures: fc.uniqueArray(fc.constantFrom(...MEASURE_IDS), { minLength: 1, maxLength: 5 }),
        dimensions: fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}\.[a-z_]{1,8}$/), { maxLength: 3 }),
        filters: fc.array(filter, { maxLength: 2 }),
      },
      { requiredKeys: ['measures'] },
    ),
    sourceWidgetId: elementId,
  },
  { requiredKeys: ['title', 'layout', 'dataConfig'] },
);

const sectionSettings = fc.record(
  {
    pacing: fc.boolean(),
    theme: fc.stringMatching(/^[a-z-]{1,10}$/),
    backgroundColor: fc.constantFrom('#fff', '#f5f5f5', 'rgb(1, 2, 3)', 'white'),
    filters: filter,
  },
  { requiredKeys: [] },
);

const section = fc.record(
  {
    title: validName,
    ordinal: fc.integer({ min: 0, max: 1_000 }),
    collapsed: fc.boolean(),
    hidden: fc.boolean(),
    widgets: fc.array(widget, { maxLength: 3 }),
    settings: sectionSettings,
  },
  { requiredKeys: ['title'] },
);

/**
 * Any valid configuration, every member optional. Client-chosen widget and section ids are left
 * out: they must be unique within the view, which a generator of independent values cannot promise.
 */
export const validConfigurationDocument = fc.record(
  {
    dateRange: fc.tuple(date, date).map(([a, b]) => (a <= b ? { start: a, end: b } : { start: b, end: a })),
    granularity: fc.constantFrom(...GRANULARITIES),
    attributionModel: fc.constantFrom(...ATTRIBUTION_MODELS),
    attributionWindow: fc.constantFrom(...ATTRIBUTION_WINDOWS),
    grid: fc.record({ maxWidth: fc.integer({ min: 320, max: 7680 }) }),
    widgets: fc.array(widget, { maxLength: 4 }),
    sections: fc.array(section, { maxLength: 3 }),
    filters: filter,
    viewFilters: fc.array(filter, { maxLength: 2 }),
    defaultSettings: sectionSettings,
  },
  { requiredKeys: [] },
);
