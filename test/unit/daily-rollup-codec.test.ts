import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CELL_STRIDE, decodeCells, encodeCells, rollupMonth } from '../../shared/store/daily-rollup-codec';
import { monthStartOf, type HourlyMetrics } from '../../shared/store/hourly-metrics-codec';
import { localDateAt } from '../../shared/time/zoned-time';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
// Whole, half- and quarter-hour offsets, both hemispheres' daylight saving, the date line.
const ZONES = ['UTC', 'America/New_York', 'Europe/Paris', 'Asia/Kolkata', 'Asia/Kathmandu', 'Australia/Adelaide', 'Australia/Lord_Howe', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'America/St_Johns', 'America/Santiago'];
const MONTHS = ['2026-01', '2026-03', '2026-04', '2026-10', '2026-11', '2024-02'];

const amount = fc.oneof(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 100_000 }).map((cents) => cents / 100));
const count = fc.integer({ min: 0, max: 1_000_000 });

/** Some hours of one UTC month, in hour order, with random metrics. */
const monthHours = fc.constantFrom(...MONTHS).chain((month) => {
  const start = monthStartOf(month);
  const hoursInMonth = Math.round((monthStartOf(nextMonth(month)) - start) / HOUR_MS);
  return fc
    .uniqueArray(fc.integer({ min: 0, max: hoursInMonth - 1 }), { maxLength: 200 })
    .chain((indexes) =>
      fc.tuple(
        ...[...indexes].sort((a, b) => a - b).map((index) =>
          fc.record({ spend: amount, impressions: count, clicks: count, conversions: count, conversionValue: amount }).map((metrics): HourlyMetrics => ({ hour: start + index * HOUR_MS, ...metrics })),
        ),
      ),
    )
    .map((hours) => ({ month, hours: hours as HourlyMetrics[] }));
});

function nextMonth(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, '0')}`;
}

/** The rollup computed the slow, obvious way: each hour's local date straight from Intl. */
function reference(hours: readonly HourlyMetrics[], zone: string): number[] {
  const cells: number[] = [];
  for (const hour of hours) {
    const local = Date.parse(`${localDateAt(hour.hour, zone)}T00:00:00Z`) / DAY_MS;
    const utc = Math.floor(hour.hour / DAY_MS);
    let last = cells.length - CELL_STRIDE;
    if (last < 0 || cells[last] !== local || cells[last + 1] !== utc) {
      last = cells.length;
      cells.push(local, utc, 0, 0, 0, 0, 0);
    }
    cells[last + 2]! += hour.spend;
    cells[last + 3]! += hour.impressions;
    cells[last + 4]! += hour.clicks;
    cells[last + 5]! += hour.conversions;
    cells[last + 6]! += hour.conversionValue;
  }
  return cells;
}

describe('daily rollups of hourly metrics', () => {
  it('sum exactly the hours of each (local date, UTC date), for random hours in random zones', () => {
    fc.assert(
      fc.property(monthHours, fc.constantFrom(...ZONES), ({ month, hours }, zone) => {
        expect([...rollupMonth(month, hours, zone)]).toEqual(reference(hours, zone));
      }),
      { numRuns: 300 },
    );
  });

  it('read back bit for bit from their string form', () => {
    fc.assert(
      fc.property(monthHours, fc.constantFrom(...ZONES), ({ month, hours }, zone) => {
        const cells = rollupMonth(month, hours, zone);
        expect(decodeCells(month, encodeCells(month, cells))).toEqual(cells);
      }),
      { numRuns: 200 },
    );
  });

  it('decode any numbers exactly as Number reads each one, integers of every length included', () => {
    const number = fc.oneof(fc.integer({ min: -1e6, max: 1e6 }), fc.maxSafeInteger(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(-0), fc.constant(1e21), fc.integer({ min: -1e9, max: 1e9 }).map((n) => n / 100), fc.integer({ min: 0, max: 999_999_999 }).map((n) => n / 1e6), fc.constant(0.1), fc.constant(123456789012345.6));
    fc.assert(
      fc.property(fc.array(fc.tuple(number, number, number, number, number, number, number), { maxLength: 20 }), (cellList) => {
        const text = cellList.flat().map(String).join(',');
        const base = Date.UTC(2026, 2, 1) / DAY_MS;
        const expected = text === '' ? [] : text.split(',').map((field, i) => (i % CELL_STRIDE < 2 ? Number(field) + base : Number(field)));
        expect([...decodeCells('2026-03', text)]).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('split a New York day at the UTC date line, so each part converts at its own date', () => {
    const at = (iso: string): HourlyMetrics => ({ hour: Date.parse(iso), spend: 1, impressions: 10, clicks: 1, conversions: 0, conversionValue: 0 });
    // March 1 in New York runs from 05:00Z on March 1 to 05:00Z on March 2.
    const cells = rollupMonth('2026-03', [at('2026-03-01T05:00:00Z'), at('2026-03-01T23:00:00Z'), at('2026-03-02T00:00:00Z'), at('2026-03-02T04:00:00Z')], 'America/New_York');
    const day = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
    expect([...cells]).toEqual([day('2026-03-01'), day('2026-03-01'), 2, 20, 2, 0, 0, day('2026-03-01'), day('2026-03-02'), 2, 20, 2, 0, 0]);
    expect(encodeCells('2026-03', cells)).toBe('0,0,2,20,2,0,0,0,1,2,20,2,0,0');
  });
});
