import * as z from 'zod/mini';
import { addTransformIssue } from './zod-mini';
import { findMeasure } from '../catalog/measures';
import { parseFilter, type Filter } from '../filters/filter-schema';
import { whenMembersValid } from './cross-field';
import { dateRangeSchema as queryDateRangeSchema, rangeProblems } from './query-fields';
import { displayName } from './display-name';

/**
 * Dashboard views (issue P3; upstream notes section 5). The spec shows only `name`, `widgets` and
 * `dashboardViewId`, so every bound below is ours, chosen so that a view always fits in one
 * DynamoDB item with room to spare, and documented in the README.
 */
export const DASHBOARD_VIEW_LIMITS = {
  /** The grid is 12 columns wide: the upstream examples' `maxColumns: 11` and `maxWidth: 1200`. */
  gridColumns: 12,
  /** Rows one widget may span. */
  widgetRows: 24,
  /** Highest row a widget may start on: 200 widgets of 24 rows stacked, with room to spare. */
  maxY: 9_999,
  widgets: 100,
  sections: 20,
  widgetsPerSection: 50,
  /** Top-level widgets plus the widgets of every section. */
  widgetsPerView: 200,
  measuresPerWidget: 30,
  dimensionsPerWidget: 10,
  filtersPerWidget: 10,
  viewFilters: 10,
  /** Widget and section ids a client chooses. */
  elementIdLength: 64,
  dimensionIdLength: 100,
  /** The configuration as JSON, in UTF-8 bytes; the rest of the item is under 2 KB, DynamoDB's cap is 400 KB. */
  configurationBytes: 256 * 1024,
  gridMaxWidth: { min: 320, max: 7680 },
  order: { min: -1_000_000_000, max: 1_000_000_000 },
  sectionOrdinal: 1_000,
  settingsTokenLength: 50,
} as const;

export const DASHBOARD_VIEW_TYPES = ['view', 'attribution_view', 'pnl_view'] as const;
export type DashboardViewType = (typeof DASHBOARD_VIEW_TYPES)[number];
export const GRANULARITIES = ['none', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
export const ATTRIBUTION_MODELS = ['first_click', 'last_click', 'any_click'] as const;
export const ATTRIBUTION_WINDOWS = [1, 7, 14, 28, 30, 60, 90] as const;
export const CHART_TYPES = ['bar', 'line', 'sparkline', 'area', 'table', 'kpi', 'number', 'pie'] as const;

/** Defaults of an omitted configuration member: the upstream CLI's `build` defaults. */
export const CONFIGURATION_DEFAULTS = {
  granularity: 'day',
  attributionModel: 'first_click',
  attributionWindow: 30,
  grid: { maxWidth: 1200 },
  chartType: 'sparkline',
  /** Days of the default date range, ending on the request's UTC date. */
  dateRangeDays: 30,
} as const;

const LIMITS = DASHBOARD_VIEW_LIMITS;
const COLUMNS = LIMITS.gridColumns;

const between = (min: number, max: number) => z.int().check(z.gte(min), z.lte(max));

const elementId = z.string().check(
  z.regex(new RegExp(`^[A-Za-z0-9_-]{1,${LIMITS.elementIdLength}}$`), {
    error: `Must be 1 to ${LIMITS.elementIdLength} letters, digits, '-' or '_' (a UUID fits)`,
  }),
);

export const dashboardViewType = z.enum(DASHBOARD_VIEW_TYPES);
const granularity = z.enum(GRANULARITIES);
const attributionModel = z.enum(ATTRIBUTION_MODELS);
const attributionWindow = z.int().check(
  z.refine((days) => (ATTRIBUTION_WINDOWS as readonly number[]).includes(days), {
    error: `Must be one of ${ATTRIBUTION_WINDOWS.join(', ')} (days)`,
  }),
);
export const viewOrder = between(LIMITS.order.min, LIMITS.order.max);

/** A view has no zone of its own; its range is ordered as read in UTC. */
export const dateRangeSchema = queryDateRangeSchema.check(
  z.superRefine((range: z.output<typeof queryDateRangeSchema>, ctx) => {
    for (const problem of rangeProblems(range, 'UTC')) ctx.addIssue({ code: 'custom', ...problem });
  }, whenMembersValid),
);
export type DateRange = z.output<typeof dateRangeSchema>;

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}

/**
 * A filter in the canonical grammar, or `{}` for "no filter". The grammar has no empty form, but
 * the upstream examples send `{}` (and `[{}]`), so `{}` is accepted and normalised away: to an
 * absent member, or dropped from a list.
 */
const filterOrNone = z.pipe(
  z.unknown(),
  z.transform((input: unknown, ctx): Filter | undefined => {
    if (isEmptyObject(input)) return undefined;
    const { filter, issues } = parseFilter(input);
    for (const issue of issues) addTransformIssue(ctx, { message: issue.message, path: issue.path, input });
    return filter ?? z.NEVER;
  }),
);
const filterList = (max: number) =>
  z.pipe(
    z.array(filterOrNone).check(z.maxLength(max)),
    z.transform((filters: Array<Filter | undefined>) => filters.filter((filter): filter is Filter => filter !== undefined)),
  );

/**
 * A measure id of the catalog, offered to dashboards. Checked per entry, so a 400 names each
 * unknown id at its own path.
 */
const dashboardMeasureId = z.string().check(
  z.superRefine((id, ctx) => {
    const measure = findMeasure(id);
    if (!measure) ctx.addIssue({ code: 'custom', message: `Unknown measure '${id}'; see GET /db-mgmt/api/measures` });
    else if (!measure.contexts.includes('dashboards')) {
      ctx.addIssue({ code: 'custom', message: `Measure '${id}' cannot be used on dashboards` });
    }
  }),
);

const dimensionId = z.string().check(
  z.regex(new RegExp(`^[A-Za-z0-9_.:-]{1,${LIMITS.dimensionIdLength}}$`), {
    error: `Must be 1 to ${LIMITS.dimensionIdLength} letters, digits, '.', ':', '-' or '_'`,
  }),
);

function noDuplicates(values: readonly string[], ctx: z.core.$RefinementCtx, key: string, what: string): void {
  const seen = new Set<string>();
  values.forEach((value, i) => {
    if (seen.has(value)) ctx.addIssue({ code: 'custom', path: [key, i], message: `${what} '${value}' is listed twice` });
    seen.add(value);
  });
}

const dataConfigSchema = z
  .strictObject({
    measures: z.array(dashboardMeasureId).check(z.minLength(1), z.maxLength(LIMITS.measuresPerWidget)),
    dimensions: z._default(z.array(dimensionId).check(z.maxLength(LIMITS.dimensionsPerWidget)), []),
    filters: z._default(filterList(LIMITS.filtersPerWidget), []),
  })
  .check(
    z.superRefine((config, ctx) => {
      noDuplicates(config.measures, ctx, 'measures', 'Measure');
      noDuplicates(config.dimensions, ctx, 'dimensions', 'Dimension');
    }, whenMembersValid),
  );

/**
 * Where a widget sits on the 12-column grid and how far a user may resize it. The bounds default
 * to the widest the grid allows, so a layout of only `x, y, columns, rows` is consistent.
 */
const LAYOUT_BOUNDS = {
  x: [0, COLUMNS - 1],
  y: [0, LIMITS.maxY],
  columns: [1, COLUMNS],
  rows: [1, LIMITS.widgetRows],
  minColumns: [1, COLUMNS],
  maxColumns: [1, COLUMNS],
  minRows: [1, LIMITS.widgetRows],
  maxRows: [1, LIMITS.widgetRows],
} as const;
const layoutMember = (key: keyof typeof LAYOUT_BOUNDS) => between(LAYOUT_BOUNDS[key][0], LAYOUT_BOUNDS[key][1]);

export const widgetLayoutSchema = z
  .strictObject({
    x: layoutMember('x'),
    y: layoutMember('y'),
    columns: layoutMember('columns'),
    rows: layoutMember('rows'),
    minColumns: z._default(layoutMember('minColumns'), 1),
    maxColumns: z._default(layoutMember('maxColumns'), COLUMNS),
    minRows: z._default(layoutMember('minRows'), 1),
    maxRows: z._default(layoutMember('maxRows'), LIMITS.widgetRows),
    static: z._default(z.boolean(), false),
  })
  .check(
    z.superRefine((layout, ctx) => {
      // zod runs this even when a member failed its own bound; a cross-member message about a value
      // already reported would only be noise, so each check needs its members valid.
      const ok = (key: keyof typeof LAYOUT_BOUNDS) => {
        const [min, max] = LAYOUT_BOUNDS[key];
        return Number.isInteger(layout[key]) && layout[key] >= min && layout[key] <= max;
      };
      if (ok('x') && ok('columns') && layout.x + layout.columns > COLUMNS) {
        ctx.addIssue({
          code: 'custom',
          path: ['columns'],
          message: `x + columns must be at most ${COLUMNS}, the grid's width (here ${layout.x} + ${layout.columns})`,
        });
      }
      const within = (size: 'columns' | 'rows', min: 'minColumns' | 'minRows', max: 'maxColumns' | 'maxRows') => {
        if (!ok(size)) return;
        if (ok(min) && layout[min] > layout[size]) {
          ctx.addIssue({ code: 'custom', path: [min], message: `${min} (${layout[min]}) must be at most ${size} (${layout[size]})` });
        }
        if (ok(max) && layout[max] < layout[size]) {
          ctx.addIssue({ code: 'custom', path: [max], message: `${max} (${layout[max]}) must be at least ${size} (${layout[size]})` });
        }
      };
      within('columns', 'minColumns', 'maxColumns');
      within('rows', 'minRows', 'maxRows');
    }),
  );
export type WidgetLayout = z.output<typeof widgetLayoutSchema>;

export const widgetInputSchema = z.strictObject({
  /** Optional on input: the server assigns a UUID. Unique within the view. */
  id: z.optional(elementId),
  title: displayName,
  chartType: z._default(z.enum(CHART_TYPES), CONFIGURATION_DEFAULTS.chartType),
  layout: widgetLayoutSchema,
  dataConfig: dataConfigSchema,
  /** Links a pinned or copied widget to its original; not checked, the original may be gone. */
  sourceWidgetId: z.optional(elementId),
});

const sectionSettingsSchema = z.strictObject({
  pacing: z.optional(z.boolean()),
  theme: z.optional(
    z.string().check(
      z.regex(new RegExp(`^[A-Za-z0-9_-]{1,${LIMITS.settingsTokenLength}}$`), {
        error: `Must be 1 to ${LIMITS.settingsTokenLength} letters, digits, '-' or '_'`,
      }),
    ),
  ),
  // Hex, rgb()/hsl() or a colour name: what CSS takes, without anything that could break out of it.
  backgroundColor: z.optional(
    z.string().check(
      z.regex(new RegExp(`^[A-Za-z0-9#(),.% -]{1,${LIMITS.settingsTokenLength}}$`), {
        error: `Must be a CSS colour of 1 to ${LIMITS.settingsTokenLength} characters, e.g. "#f5f5f5"`,
      }),
    ),
  ),
  filters: z.optional(filterOrNone),
});

const sectionInputSchema = z.strictObject({
  id: z.optional(elementId),
  title: displayName,
  /** Display position; defaults to the section's index in `sections`. */
  ordinal: z.optional(between(0, LIMITS.sectionOrdinal)),
  collapsed: z._default(z.boolean(), false),
  hidden: z._default(z.boolean(), false),
  widgets: z._default(z.array(widgetInputSchema).check(z.maxLength(LIMITS.widgetsPerSection)), []),
  settings: z.optional(sectionSettingsSchema),
});

/**
 * The configuration: the union of both upstream generations' keys. Omitted members get the
 * CLI's defaults, except `dateRange` (the service fills it from the request time) and the
 * optional `filters`, `viewFilters` and `defaultSettings`, which stay absent.
 */
export const configurationInputSchema = z
  .strictObject({
    dateRange: z.optional(dateRangeSchema),
    granularity: z._default(granularity, CONFIGURATION_DEFAULTS.granularity),
    attributionModel: z._default(attributionModel, CONFIGURATION_DEFAULTS.attributionModel),
    attributionWindow: z._default(attributionWindow, CONFIGURATION_DEFAULTS.attributionWindow),
    grid: z._default(z.strictObject({ maxWidth: between(LIMITS.gridMaxWidth.min, LIMITS.gridMaxWidth.max) }), { ...CONFIGURATION_DEFAULTS.grid }),
    widgets: z._default(z.array(widgetInputSchema).check(z.maxLength(LIMITS.widgets)), []),
    sections: z._default(z.array(sectionInputSchema).check(z.maxLength(LIMITS.sections)), []),
    filters: z.optional(filterOrNone),
    /** The older generation's view-level filters: a list in the same grammar. */
    viewFilters: z.optional(filterList(LIMITS.viewFilters)),
    defaultSettings: z.optional(sectionSettingsSchema),
  })
  .check(
    z.superRefine((configuration, ctx) => {
      const widgets = [
        ...configuration.widgets.map((widget, i) => ({ widget, path: ['widgets', i] })),
        ...configuration.sections.flatMap((section, s) =>
          section.widgets.map((widget, i) => ({ widget, path: ['sections', s, 'widgets', i] })),
        ),
      ];
      if (widgets.length > LIMITS.widgetsPerView) {
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: `A view holds at most ${LIMITS.widgetsPerView} widgets in all, top-level and in sections; this one has ${widgets.length}`,
        });
      }
      // Ids name widgets in pin/unpin and sourceWidgetId; one id must mean one widget.
      const seen = new Set<string>();
      for (const { widget, path } of widgets) {
        if (widget.id === undefined) continue;
        if (seen.has(widget.id)) ctx.addIssue({ code: 'custom', path: [...path, 'id'], message: `Duplicate widget id '${widget.id}'` });
        seen.add(widget.id);
      }
      const sectionIds = new Set<string>();
      configuration.sections.forEach((section, s) => {
        if (section.id === undefined) return;
        if (sectionIds.has(section.id)) ctx.addIssue({ code: 'custom', path: ['sections', s, 'id'], message: `Duplicate section id '${section.id}'` });
        sectionIds.add(section.id);
      });
      const bytes = Buffer.byteLength(JSON.stringify(configuration), 'utf8');
      if (bytes > LIMITS.configurationBytes) {
        ctx.addIssue({
          code: 'custom',
          path: [],
          message: `The configuration is ${bytes} bytes as JSON; a view holds at most ${LIMITS.configurationBytes} (256 KiB)`,
        });
      }
    }, whenMembersValid),
  );
export type ConfigurationInput = z.output<typeof configurationInputSchema>;

/*
 * Stored and returned shapes: the input with every id assigned, the date range filled in and the
 * `{}` filters gone. Derived from the inferred input types, so the two cannot drift.
 */
type WidgetInput = z.output<typeof widgetInputSchema>;
type SectionInput = z.output<typeof sectionInputSchema>;
export type Widget = Omit<WidgetInput, 'id'> & { id: string };
export type Section = Omit<SectionInput, 'id' | 'ordinal' | 'widgets'> & { id: string; ordinal: number; widgets: Widget[] };
export type DashboardViewConfiguration = Omit<ConfigurationInput, 'dateRange' | 'widgets' | 'sections'> & {
  dateRange: DateRange;
  widgets: Widget[];
  sections: Section[];
};

/**
 * A view's members besides its configuration. The repository reads items with it, so a corrupt
 * item fails loudly. `createdBy` / `updatedBy` are `""` for API-key writes, as upstream documents;
 * the key is recorded server-side only.
 */
export const dashboardViewMembersSchema = z.object({
  dashboardViewId: z.string(),
  pixelId: z.string(),
  type: dashboardViewType,
  name: z.string(),
  order: z.int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  createdBy: z.string(),
  updatedBy: z.string(),
});
export type DashboardView = z.output<typeof dashboardViewMembersSchema> & { configuration: DashboardViewConfiguration };

export type DashboardViewSummary = Pick<DashboardView, 'dashboardViewId' | 'type' | 'name' | 'order' | 'createdAt' | 'updatedAt'>;

/** POST /accounts/api/dashboard/views */
export const createDashboardViewSchema = z.strictObject({
  type: z._default(dashboardViewType, 'view'),
  name: displayName,
  configuration: configurationInputSchema,
  /** Absent: after every existing view (max + 1). */
  order: z.optional(viewOrder),
});
export type CreateDashboardViewInput = z.output<typeof createDashboardViewSchema>;

const PATCHABLE = ['name', 'configuration', 'order'] as const;

/** PATCH /accounts/api/dashboard/views/{dashboardViewId}: only what is sent changes; `configuration` is replaced whole. */
export const updateDashboardViewSchema = z
  .strictObject({
    name: z.optional(displayName),
    configuration: z.optional(configurationInputSchema),
    order: z.optional(viewOrder),
  })
  .check(
    z.superRefine((patch, ctx) => {
      if (PATCHABLE.every((key) => patch[key] === undefined)) {
        ctx.addIssue({ code: 'custom', path: [], message: `Send at least one of ${PATCHABLE.join(', ')}` });
      }
    }),
  );
export type DashboardViewPatch = z.output<typeof updateDashboardViewSchema>;

/** POST /accounts/api/dashboard/views/{dashboardViewId}/copy; an empty body is `{}`. */
export const copyDashboardViewSchema = z.strictObject({ name: z.optional(displayName) });

/** POST /accounts/api/dashboard/views/from-preset (spec 4.4, plus the CLI `build` options that make sense here). */
export const dashboardViewFromPresetSchema = z.strictObject({
  name: displayName,
  widgets: z
    .array(
      z.strictObject({
        measure: dashboardMeasureId,
        /** Absent: the measure's `shortTitle`, as the CLI fills it. */
        title: z.optional(displayName),
      }),
    )
    .check(z.minLength(1), z.maxLength(LIMITS.widgets)),
  type: z._default(dashboardViewType, 'view'),
  dateRange: z.optional(dateRangeSchema),
  granularity: z._default(granularity, CONFIGURATION_DEFAULTS.granularity),
  attributionModel: z._default(attributionModel, CONFIGURATION_DEFAULTS.attributionModel),
  attributionWindow: z._default(attributionWindow, CONFIGURATION_DEFAULTS.attributionWindow),
});
export type DashboardViewFromPresetInput = z.output<typeof dashboardViewFromPresetSchema>;

/**
 * The id is checked by the service, not here: a malformed id is a view that does not exist (404),
 * never a validation error that would tell ids and views apart.
 */
export const dashboardViewPathSchema = z.strictObject({ dashboardViewId: z.string() });

/** GET /accounts/api/dashboard/views; strict, so a misspelt parameter is a 400, not an unfiltered list. */
export const listDashboardViewsQuerySchema = z.strictObject({ type: z.optional(dashboardViewType) });
