import { DASHBOARD_VIEW_LIMITS, type WidgetLayout } from '../schemas/dashboard-view';

/**
 * The tile of a from-preset widget: a sparkline needs little room, so four fit side by side on
 * the 12-column grid, and a user may resize within bounds that keep it readable.
 */
export const PRESET_TILE = { columns: 3, rows: 2, minColumns: 2, maxColumns: 6, minRows: 2, maxRows: 4 } as const;

const TILES_PER_ROW = Math.floor(DASHBOARD_VIEW_LIMITS.gridColumns / PRESET_TILE.columns);

/**
 * Lays `count` tiles out in reading order: left to right, then the next band of rows. Tiles of one
 * size on a fixed stride can neither overlap nor leave the grid, and the n-th tile is the n-th read.
 */
export function presetLayout(count: number): WidgetLayout[] {
  return Array.from({ length: count }, (_, i) => ({
    x: (i % TILES_PER_ROW) * PRESET_TILE.columns,
    y: Math.floor(i / TILES_PER_ROW) * PRESET_TILE.rows,
    ...PRESET_TILE,
    static: false,
  }));
}
