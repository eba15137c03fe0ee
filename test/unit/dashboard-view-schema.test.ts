import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MEASURES } from '../../shared/catalog/measures';
import { copyName } from '../../shared/dashboards/copy-name';
import { toValidationIssues } from '../../shared/http/zod-issues';
import {
  ATTRIBUTION_MODELS,
  ATTRIBUTION_WINDOWS,
  CHART_TYPES,
  DASHBOARD_VIEW_TYPES,
  GRANULARITIES,
  configurationInputSchema,
  copyDashboardViewSchema,
  createDashboardViewSchema,
  dashboardViewFromPresetSchema,
  listDashboardViewsQuerySchema,
  updateDashboardViewSchema,
} from '../../shared/schemas/dashboard-view';
import { displayNameProblem } from '../../shared/schemas/display-name';
import { validConfiguration, validConfigurationDocument, validCreateBody, validWidget } from '../support/dashboard-view-fixtures';
import { objectsWithPaths, validName } from '../support/order-settings-fixtures';

type Schema = { safeParse(input: unknown): { success: boolean; error?: unknown; data?: unknown } };

function issuesOf(schema: Schema, body: unknown) {
  const result = schema.safeParse(body);
  return result.success ? [] : toValidationIssues(result.error as never);
}
const createIssues = (body: unknown) => issuesOf(createDashboardViewSchema, body);
const configIssues = (configuration: unknown) => issuesOf(configurationInputSchema, configuration);
const parsedConfig = (configuration: unknown) => configurationInputSchema.parse(configuration);
const withWidget = (overrides: Record<string, unknown>) => ({ widgets: [validWidget(overrides)] });
const W = ['widgets', '0'];

describe('create body', () => {
  it('accepts a complete view and a minimal one, defaulting type to "view"', () => {
    expect(createIssues(validCreateBody({ type: 'pnl_view', order: 3 }))).toEqual([]);
    expect(createDashboardViewSchema.parse({ name: 'a', configuration: {} })).toMatchObject({ type: 'view', name: 'a' });
  });

  it.each(['name', 'configuration'])('requires %s', (member) => {
    const body: Record<string, unknown> = validCreateBody();
    delete body[member];
    expect(createIssues(body)).toEqual([expect.objectContaining({ path: [member] })]);
  });

  it.each([...DASHBOARD_VIEW_TYPES])('accepts the type %s', (type) => {
    expect(createIssues(validCreateBody({ type }))).toEqual([]);
  });

  it.each([['dashboard'], ['VIEW'], [1], [null]])('rejects the type %j', (type) => {
    expect(createIssues(validCreateBody({ type }))).toEqual([expect.objectContaining({ path: ['type'] })]);
  });

  it.each([[-1_000_000_000], [0], [1_000_000_000]])('accepts the order %d', (order) => {
    expect(createIssues(validCreateBody({ order }))).toEqual([]);
  });

  it.each([[1.5], ['1'], [1_000_000_001], [-1_000_000_001], [null]])('rejects the order %j', (order) => {
    expect(createIssues(validCreateBody({ order }))).toEqual([expect.objectContaining({ path: ['order'] })]);
  });

  it.each([
    ['empty', ''],
    ['101 characters', 'a'.repeat(101)],
    ['a control character', 'a\tb'],
    ['a zero-width space', 'a\u200Bb'],
    ['a bidirectional override', 'abc\u202Etxt'],
  ])('rejects a name that is %s, with the exclusion-filter name rules', (_, name) => {
    expect(createIssues(validCreateBody({ name }))).toEqual([expect.objectContaining({ path: ['name'] })]);
  });

  it('accepts names of 100 emoji and of many scripts', () => {
    expect(createIssues(validCreateBody({ name: '😀'.repeat(100) }))).toEqual([]);
    expect(createIssues(validCreateBody({ name: 'Ventes 📈 Ελληνικά 中文 👩‍💻' }))).toEqual([]);
  });

  it('rejects unknown keys, pixelId and dashboardViewId included, one issue per key', () => {
    expect(createIssues(validCreateBody({ pixelId: 'px', dashboardViewId: 'x', colour: 'red' })).map((issue) => issue.path)).toEqual([
      ['pixelId'],
      ['dashboardViewId'],
      ['colour'],
    ]);
  });
});

describe('configuration: defaults and enumerations', () => {
  it('fills the CLI defaults for omitted members and leaves the optional ones absent', () => {
    expect(parsedConfig({})).toEqual({
      granularity: 'day',
      attributionModel: 'first_click',
      attributionWindow: 30,
      grid: { maxWidth: 1200 },
      widgets: [],
      sections: [],
    });
  });

  it.each([
    ['granularity', GRANULARITIES, ['daily', 'DAY', '']],
    ['attributionModel', ATTRIBUTION_MODELS, ['linear', 'first-click']],
    ['attributionWindow', ATTRIBUTION_WINDOWS, [0, 2, 365, '30', 30.5]],
  ] as const)('%s accepts exactly its values', (member, accepted, rejected) => {
    for (const value of accepted) expect(configIssues({ [member]: value })).toEqual([]);
    for (const value of rejected) expect(configIssues({ [member]: value })).toEqual([expect.objectContaining({ path: [member] })]);
  });

  it('bounds grid.maxWidth to 320..7680 pixels', () => {
    expect(configIssues({ grid: { maxWidth: 320 } })).toEqual([]);
    expect(configIssues({ grid: { maxWidth: 7680 } })).toEqual([]);
    for (const maxWidth of [319, 7681, 1200.5]) {
      expect(configIssues({ grid: { maxWidth } })).toEqual([expect.objectContaining({ path: ['grid', 'maxWidth'] })]);
    }
    expect(configIssues({ grid: {} })).toEqual([expect.objectContaining({ path: ['grid', 'maxWidth'] })]);
  });

  it('takes a date range of dates or date-times, start not after end', () => {
    expect(configIssues({ dateRange: { start: '2026-03-01', end: '2026-03-01' } })).toEqual([]);
    expect(configIssues({ dateRange: { start: '2026-03-01T10:00:00Z', end: '2026-03-02T00:00:00+02:00' } })).toEqual([]);
    expect(configIssues({ dateRange: { start: '2026-03-02', end: '2026-03-01' } })).toEqual([
      expect.objectContaining({ path: ['dateRange', 'end'], message: 'end must be after start; a date-only end covers that whole day' }),
    ]);
    expect(configIssues({ dateRange: { start: '2026-03-01T10:00:00Z', end: '2026-03-01T10:00:00Z' } })).toEqual([
      expect.objectContaining({ path: ['dateRange', 'end'] }),
    ]);
    expect(configIssues({ dateRange: { start: '2026-02-30', end: 'yesterday' } }).map((issue) => issue.path)).toEqual([
      ['dateRange', 'start'],
      ['dateRange', 'end'],
    ]);
    expect(configIssues({ dateRange: { start: '2026-03-01' } })).toEqual([expect.objectContaining({ path: ['dateRange', 'end'] })]);
  });
});

describe('configuration: filters in the canonical grammar', () => {
  it('accepts a filter and reads {} as no filter, wherever a filter goes', () => {
    const condition = { field: 'channel.ad_name', op: 'contains', value: 'video' };
    const parsed = parsedConfig({
      filters: {},
      viewFilters: [{}, condition],
      defaultSettings: { filters: {} },
      widgets: [validWidget({ dataConfig: { measures: ['channel.spend'], filters: [{}, { not: condition }] } })],
    });
    expect(JSON.parse(JSON.stringify(parsed))).toMatchObject({
      viewFilters: [condition],
      defaultSettings: {},
      widgets: [{ dataConfig: { filters: [{ not: condition }] } }],
    });
    expect(JSON.parse(JSON.stringify(parsed))).not.toHaveProperty('filters');
  });

  it.each([
    ['filters', { filters: { and: [] } }, ['filters', 'and']],
    ['filters', { filters: { field: 'x', op: 'equals' } }, ['filters', 'value']],
    ['viewFilters', { viewFilters: [{ or: [{ field: 'x', op: 'nope', value: 1 }] }] }, ['viewFilters', '0', 'or', '0', 'op']],
    ['section settings', { defaultSettings: { filters: 'x' } }, ['defaultSettings', 'filters']],
    [
      'widget filters',
      withWidget({ dataConfig: { measures: ['channel.spend'], filters: [{ field: 'x', op: 'in', value: [] }] } }),
      [...W, 'dataConfig', 'filters', '0', 'value'],
    ],
  ])('rejects a malformed filter in %s at its path', (_, configuration, path) => {
    expect(configIssues(configuration)).toEqual([expect.objectContaining({ path })]);
  });

  it('bounds filter lists to 10', () => {
    const condition = { field: 'x', op: 'equals', value: 1 };
    expect(configIssues({ viewFilters: Array(10).fill(condition) })).toEqual([]);
    expect(configIssues({ viewFilters: Array(11).fill(condition) })).toEqual([expect.objectContaining({ path: ['viewFilters'] })]);
  });
});

describe('widgets', () => {
  it('defaults chartType to sparkline and the layout bounds to the whole grid', () => {
    const { widgets } = parsedConfig({ widgets: [{ title: 't', layout: { x: 2, y: 1, columns: 4, rows: 3 }, dataConfig: { measures: ['channel.ctr'] } }] });
    expect(widgets[0]).toEqual({
      title: 't',
      chartType: 'sparkline',
      layout: { x: 2, y: 1, columns: 4, rows: 3, minColumns: 1, maxColumns: 12, minRows: 1, maxRows: 24, static: false },
      dataConfig: { measures: ['channel.ctr'], dimensions: [], filters: [] },
    });
  });

  it.each([...CHART_TYPES])('accepts the chart type %s', (chartType) => {
    expect(configIssues(withWidget({ chartType }))).toEqual([]);
  });

  it.each([['donut'], ['Bar'], [null]])('rejects the chart type %j', (chartType) => {
    expect(configIssues(withWidget({ chartType }))).toEqual([expect.objectContaining({ path: [...W, 'chartType'] })]);
  });

  it.each(['title', 'layout', 'dataConfig'])('requires %s', (member) => {
    const widget: Record<string, unknown> = validWidget();
    delete widget[member];
    expect(configIssues({ widgets: [widget] })).toEqual([expect.objectContaining({ path: [...W, member] })]);
  });

  it('takes the display-name rules for titles', () => {
    expect(configIssues(withWidget({ title: '' }))).toEqual([expect.objectContaining({ path: [...W, 'title'] })]);
    expect(configIssues(withWidget({ title: 'x\u0000' }))).toEqual([expect.objectContaining({ path: [...W, 'title'] })]);
  });

  it('accepts client ids of letters, digits, - and _, and rejects others', () => {
    expect(configIssues(withWidget({ id: 'w_1-A', sourceWidgetId: '7a7ac543-9801-4c44-9108-fa3cf097ff78' }))).toEqual([]);
    for (const id of ['', 'a b', 'x'.repeat(65), 'é', 5]) {
      expect(configIssues(withWidget({ id }))).toEqual([expect.objectContaining({ path: [...W, 'id'] })]);
    }
  });
});

describe('widget layout', () => {
  const layoutIssues = (layout: Record<string, unknown>) =>
    configIssues(withWidget({ layout: { x: 0, y: 0, columns: 6, rows: 2, ...layout } })).map((issue) => issue.path.slice(W.length).join('.'));

  it.each([
    ['the grid exactly', { x: 6, columns: 6 }],
    ['one full-width column span', { x: 0, columns: 12 }],
    ['bounds equal to the size', { minColumns: 6, maxColumns: 6, minRows: 2, maxRows: 2 }],
    ['the tallest widget', { rows: 24, maxRows: 24 }],
    ['a static widget far down', { y: 9_999, static: true }],
  ])('accepts %s', (_, layout) => {
    expect(layoutIssues(layout)).toEqual([]);
  });

  it.each([
    ['x + columns past the grid', { x: 7, columns: 6 }, 'columns'],
    ['a negative x', { x: -1 }, 'x'],
    ['x past the last column', { x: 12, columns: 1 }, 'x'],
    ['a negative y', { y: -1 }, 'y'],
    ['y past 9999', { y: 10_000 }, 'y'],
    ['zero columns', { columns: 0 }, 'columns'],
    ['13 columns', { columns: 13 }, 'columns'],
    ['zero rows', { rows: 0 }, 'rows'],
    ['25 rows', { rows: 25 }, 'rows'],
    ['a fractional x', { x: 1.5 }, 'x'],
    ['a string y', { y: '1' }, 'y'],
    ['minColumns above columns', { minColumns: 7 }, 'minColumns'],
    ['maxColumns below columns', { maxColumns: 5 }, 'maxColumns'],
    ['minRows above rows', { minRows: 3 }, 'minRows'],
    ['maxRows below rows', { maxRows: 1 }, 'maxRows'],
    ['a non-boolean static', { static: 'yes' }, 'static'],
  ])('rejects %s', (_, layout, path) => {
    expect(layoutIssues(layout)).toEqual([`layout.${path}`]);
  });

  it('requires x, y, columns and rows', () => {
    expect(configIssues(withWidget({ layout: {} })).map((issue) => issue.key)).toEqual(['x', 'y', 'columns', 'rows']);
  });

  it('does not reject overlapping widgets: the dashboard grid compacts them', () => {
    expect(configIssues({ widgets: [validWidget(), validWidget()] })).toEqual([]);
  });
});

describe('widget dataConfig', () => {
  const data = (dataConfig: Record<string, unknown>) => configIssues(withWidget({ dataConfig }));
  const D = [...W, 'dataConfig'];

  it('names each unknown measure at its own index', () => {
    expect(data({ measures: ['channel.spend', 'orders.revenue', 'meta.roas'] })).toEqual([
      expect.objectContaining({ path: [...D, 'measures', '1'], message: expect.stringContaining("'orders.revenue'") }),
      expect.objectContaining({ path: [...D, 'measures', '2'], message: expect.stringContaining("'meta.roas'") }),
    ]);
  });

  it('takes 1 to 30 measures, each once', () => {
    // The catalog holds fewer than 30 distinct ids today; the bound still caps the list.
    const everyMeasure = MEASURES.map((measure) => measure.id);
    expect(data({ measures: everyMeasure.slice(0, 30) })).toEqual([]);
    expect(data({ measures: Array.from({ length: 31 }, (_, i) => everyMeasure[i % everyMeasure.length]) })).toEqual([
      expect.objectContaining({ path: [...D, 'measures'], message: expect.stringContaining('30') }),
    ]);
    expect(data({ measures: [] })).toEqual([expect.objectContaining({ path: [...D, 'measures'] })]);
    expect(data({ measures: ['channel.spend', 'channel.spend'] })).toEqual([
      expect.objectContaining({ path: [...D, 'measures', '1'], message: "Measure 'channel.spend' is listed twice" }),
    ]);
  });

  it('takes up to 10 distinct dimension ids', () => {
    const dims = Array.from({ length: 11 }, (_, i) => `channel.dim_${i}`);
    expect(data({ measures: ['channel.spend'], dimensions: dims.slice(0, 10) })).toEqual([]);
    expect(data({ measures: ['channel.spend'], dimensions: dims })).toEqual([expect.objectContaining({ path: [...D, 'dimensions'] })]);
    expect(data({ measures: ['channel.spend'], dimensions: ['a b'] })).toEqual([expect.objectContaining({ path: [...D, 'dimensions', '0'] })]);
  });
});

describe('sections and caps', () => {
  const widgets = (n: number) => Array.from({ length: n }, () => validWidget());
  const section = (n: number, extra: Record<string, unknown> = {}) => ({ title: 'S', widgets: widgets(n), ...extra });

  it('fills section defaults', () => {
    expect(parsedConfig({ sections: [{ title: 'Pinned' }] }).sections).toEqual([{ title: 'Pinned', collapsed: false, hidden: false, widgets: [] }]);
  });

  it('takes up to 100 top-level widgets, 20 sections and 50 widgets a section', () => {
    expect(configIssues({ widgets: widgets(100) })).toEqual([]);
    expect(configIssues({ widgets: widgets(101) })).toEqual([expect.objectContaining({ path: ['widgets'] })]);
    expect(configIssues({ sections: Array.from({ length: 20 }, () => section(0)) })).toEqual([]);
    expect(configIssues({ sections: Array.from({ length: 21 }, () => section(0)) })).toEqual([expect.objectContaining({ path: ['sections'] })]);
    expect(configIssues({ sections: [section(50)] })).toEqual([]);
    expect(configIssues({ sections: [section(51)] })).toEqual([expect.objectContaining({ path: ['sections', '0', 'widgets'] })]);
  });

  it('takes at most 200 widgets in a view in all', () => {
    expect(configIssues({ widgets: widgets(100), sections: [section(50), section(50)] })).toEqual([]);
    expect(configIssues({ widgets: widgets(100), sections: [section(50), section(50), section(1)] })).toEqual([
      expect.objectContaining({ path: [], message: expect.stringContaining('at most 200 widgets') }),
    ]);
  });

  it('rejects a widget id used twice anywhere in the view, and a section id used twice', () => {
    expect(configIssues({ widgets: [validWidget({ id: 'w1' })], sections: [section(0, { widgets: [validWidget({ id: 'w1' })] })] })).toEqual([
      expect.objectContaining({ path: ['sections', '0', 'widgets', '0', 'id'], message: "Duplicate widget id 'w1'" }),
    ]);
    expect(configIssues({ sections: [section(0, { id: 's' }), section(0, { id: 's' })] })).toEqual([
      expect.objectContaining({ path: ['sections', '1', 'id'] }),
    ]);
  });

  it('rejects a configuration over 256 KiB of JSON, naming its size', () => {
    const big = { field: 'channel.ad_name', op: 'in', value: Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(500, 'x')) };
    const configuration = { widgets: widgets(6).map((w) => ({ ...w, dataConfig: { measures: ['channel.spend'], filters: [big] } })) };
    expect(configIssues(configuration)).toEqual([
      expect.objectContaining({ path: [], message: expect.stringMatching(/^The configuration is \d+ bytes as JSON; a view holds at most 262144/) }),
    ]);
  });

  it.each([
    ['theme', { theme: 'a b' }],
    ['backgroundColor', { backgroundColor: 'url(javascript:x)"' }],
    ['pacing', { pacing: 'yes' }],
  ])('checks section settings: %s', (key, settings) => {
    expect(configIssues({ defaultSettings: settings })).toEqual([expect.objectContaining({ path: ['defaultSettings', key] })]);
  });
});

describe('configuration properties', () => {
  it('accepts any configuration built from valid parts', () => {
    fc.assert(
      fc.property(validConfigurationDocument, (configuration) => {
        expect(configIssues(configuration)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('rejects an unknown key slipped into any object of a valid view, at that key', () => {
    fc.assert(
      fc.property(validConfigurationDocument, fc.nat(), (configuration, pick) => {
        const body = { name: 'v', configuration: structuredClone(configuration) };
        const objects = objectsWithPaths(body);
        const { object, path } = objects[pick % objects.length]!;
        object.unexpectedKey = 1;
        expect(createIssues(body)).toContainEqual(expect.objectContaining({ path: [...path, 'unexpectedKey'] }));
      }),
      { numRuns: 200 },
    );
  });
});

describe('PATCH body', () => {
  const patchIssues = (body: unknown) => issuesOf(updateDashboardViewSchema, body);

  it.each([[{ name: 'n' }], [{ order: 2 }], [{ configuration: validConfiguration() }], [{ name: 'n', order: -1, configuration: {} }]])(
    'accepts %j',
    (body) => {
      expect(patchIssues(body)).toEqual([]);
    },
  );

  it('requires at least one member', () => {
    expect(patchIssues({})).toEqual([expect.objectContaining({ path: [], message: 'Send at least one of name, configuration, order' })]);
  });

  it.each(['type', 'pixelId', 'dashboardViewId', 'createdAt', 'updatedBy'])('rejects %s: only name, configuration and order change', (key) => {
    expect(patchIssues({ name: 'n', [key]: 'x' })).toEqual([expect.objectContaining({ path: [key] })]);
  });

  it('validates what it is sent', () => {
    expect(patchIssues({ name: '' }).map((issue) => issue.path)).toEqual([['name']]);
    expect(patchIssues({ configuration: { granularity: 'daily' } }).map((issue) => issue.path)).toEqual([['configuration', 'granularity']]);
  });
});

describe('copy body and list query', () => {
  it('copy takes an optional name and nothing else', () => {
    expect(issuesOf(copyDashboardViewSchema, {})).toEqual([]);
    expect(issuesOf(copyDashboardViewSchema, { name: 'Mine' })).toEqual([]);
    expect(issuesOf(copyDashboardViewSchema, { name: '' })).toEqual([expect.objectContaining({ path: ['name'] })]);
    expect(issuesOf(copyDashboardViewSchema, { title: 'x' })).toEqual([expect.objectContaining({ path: ['title'] })]);
  });

  it('list takes an optional type and nothing else', () => {
    expect(issuesOf(listDashboardViewsQuerySchema, {})).toEqual([]);
    expect(issuesOf(listDashboardViewsQuerySchema, { type: 'attribution_view' })).toEqual([]);
    expect(issuesOf(listDashboardViewsQuerySchema, { type: 'all' })).toEqual([expect.objectContaining({ path: ['type'] })]);
    expect(issuesOf(listDashboardViewsQuerySchema, { tpye: 'view' })).toEqual([expect.objectContaining({ path: ['tpye'] })]);
  });
});

describe('from-preset body', () => {
  const presetIssues = (body: unknown) => issuesOf(dashboardViewFromPresetSchema, body);
  const preset = (overrides: Record<string, unknown> = {}) => ({ name: 'KPIs', widgets: [{ measure: 'channel.spend', title: 'Spend' }], ...overrides });

  it('accepts name and widgets, with the CLI defaults for the rest', () => {
    expect(dashboardViewFromPresetSchema.parse(preset({ widgets: [{ measure: 'channel.roas' }] }))).toEqual({
      name: 'KPIs',
      widgets: [{ measure: 'channel.roas' }],
      type: 'view',
      granularity: 'day',
      attributionModel: 'first_click',
      attributionWindow: 30,
    });
    const dateRange = { start: '2026-01-01', end: '2026-01-31' };
    expect(presetIssues(preset({ type: 'pnl_view', dateRange, granularity: 'week', attributionWindow: 7 }))).toEqual([]);
  });

  it('names each unknown measure at its own entry', () => {
    const widgets = [{ measure: 'orders.revenue', title: 'a' }, { measure: 'channel.spend', title: 'b' }, { measure: 'spend', title: 'c' }];
    expect(presetIssues(preset({ widgets }))).toEqual([
      expect.objectContaining({ path: ['widgets', '0', 'measure'], message: "Unknown measure 'orders.revenue'; see GET /db-mgmt/api/measures" }),
      expect.objectContaining({ path: ['widgets', '2', 'measure'], message: "Unknown measure 'spend'; see GET /db-mgmt/api/measures" }),
    ]);
  });

  it('takes 1 to 100 widgets', () => {
    const widgets = (n: number) => Array.from({ length: n }, () => ({ measure: 'channel.spend', title: 't' }));
    expect(presetIssues(preset({ widgets: widgets(100) }))).toEqual([]);
    expect(presetIssues(preset({ widgets: widgets(0) }))).toEqual([expect.objectContaining({ path: ['widgets'] })]);
    expect(presetIssues(preset({ widgets: widgets(101) }))).toEqual([expect.objectContaining({ path: ['widgets'] })]);
  });

  it.each([
    [{ name: undefined }, ['name']],
    [{ widgets: [{ title: 't' }] }, ['widgets', '0', 'measure']],
    [{ widgets: [{ measure: 'channel.spend', title: '' }] }, ['widgets', '0', 'title']],
    [{ widgets: [{ measure: 'channel.spend', chartType: 'bar' }] }, ['widgets', '0', 'chartType']],
    [{ layout: 'kpi-grid' }, ['layout']],
    [{ granularity: 'fortnight' }, ['granularity']],
    [{ dateRange: { start: '2026-02-01', end: '2026-01-01' } }, ['dateRange', 'end']],
  ])('rejects %j at its path', (overrides, path) => {
    expect(presetIssues(preset(overrides))).toEqual([expect.objectContaining({ path })]);
  });
});

describe('the default name of a copy', () => {
  it('appends " (copy)"', () => {
    expect(copyName('Overview')).toBe('Overview (copy)');
    expect(copyName('a'.repeat(93))).toBe(`${'a'.repeat(93)} (copy)`);
  });

  it('shortens a long name at a visible character boundary, marked with an ellipsis', () => {
    expect(copyName('a'.repeat(100))).toBe(`${'a'.repeat(92)}… (copy)`);
    expect(copyName('👩‍💻'.repeat(40))).toBe(`${'👩‍💻'.repeat(30)}… (copy)`);
  });

  it('is a valid name for any valid name', () => {
    const longValidName = fc.array(validName, { minLength: 1, maxLength: 6 }).map((names) => [...names.join('')].slice(0, 100).join(''));
    fc.assert(
      fc.property(longValidName, (name) => {
        fc.pre(displayNameProblem(name) === undefined);
        const copy = copyName(name);
        expect(displayNameProblem(copy)).toBeUndefined();
        expect(copy.endsWith(' (copy)')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
