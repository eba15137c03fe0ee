import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRESET_TILE, presetLayout } from '../../shared/dashboards/preset-layout';
import { DASHBOARD_VIEW_LIMITS, widgetLayoutSchema } from '../../shared/schemas/dashboard-view';

const overlap = (a: { x: number; y: number; columns: number; rows: number }, b: typeof a) =>
  a.x < b.x + b.columns && b.x < a.x + a.columns && a.y < b.y + b.rows && b.y < a.y + a.rows;

describe('from-preset layout', () => {
  it('lays tiles of 3 columns by 2 rows four to a row, left to right, then down', () => {
    expect(presetLayout(6).map(({ x, y }) => [x, y])).toEqual([
      [0, 0],
      [3, 0],
      [6, 0],
      [9, 0],
      [0, 2],
      [3, 2],
    ]);
    expect(presetLayout(1)[0]).toEqual({ x: 0, y: 0, ...PRESET_TILE, static: false });
  });

  it('gives any number of widgets, 1 to the cap, tiles inside the grid, never overlapping, in reading order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: DASHBOARD_VIEW_LIMITS.widgets }), (count) => {
        const tiles = presetLayout(count);
        expect(tiles).toHaveLength(count);
        for (const [i, tile] of tiles.entries()) {
          expect(widgetLayoutSchema.safeParse(tile).success).toBe(true);
          expect(tile.x + tile.columns).toBeLessThanOrEqual(DASHBOARD_VIEW_LIMITS.gridColumns);
          for (const other of tiles.slice(i + 1)) expect(overlap(tile, other)).toBe(false);
          const next = tiles[i + 1];
          // Reading order: the next tile is further right on the same row, or on a lower row.
          if (next) expect(next.y > tile.y || (next.y === tile.y && next.x > tile.x)).toBe(true);
        }
      }),
    );
  });
});
