import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatInZone,
  instantOfWallTime,
  isValidTimeZone,
  localDateAt,
  localDaysBetween,
  offsetMinutesAt,
  startOfLocalDay,
} from '../../shared/time/zoned-time';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

describe('zoned time', () => {
  it('knows IANA zones and rejects made-up ones', () => {
    expect(isValidTimeZone('America/New_York')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus_Mons')).toBe(false);
  });

  it('gives offsets, including half- and quarter-hour zones', () => {
    expect(offsetMinutesAt(at('2026-01-15T12:00:00Z'), 'America/New_York')).toBe(-300);
    expect(offsetMinutesAt(at('2026-07-15T12:00:00Z'), 'America/New_York')).toBe(-240);
    expect(offsetMinutesAt(at('2026-07-15T12:00:00Z'), 'Asia/Kolkata')).toBe(330);
    expect(offsetMinutesAt(at('2026-07-15T12:00:00Z'), 'Asia/Kathmandu')).toBe(345);
  });

  it('makes the spring-forward day in New York 23 hours long and the fall-back day 25', () => {
    const [spring] = localDaysBetween(at('2026-03-08T05:00:00Z'), at('2026-03-08T06:00:00Z'), 'America/New_York');
    expect(spring).toEqual({ date: '2026-03-08', start: at('2026-03-08T05:00:00Z'), end: at('2026-03-09T04:00:00Z') });
    expect((spring!.end - spring!.start) / HOUR).toBe(23);

    const [fall] = localDaysBetween(at('2026-11-01T04:00:00Z'), at('2026-11-01T05:00:00Z'), 'America/New_York');
    expect((fall!.end - fall!.start) / HOUR).toBe(25);
  });

  it('resolves skipped and repeated wall times the way calendar software does', () => {
    // 02:30 does not exist on 2026-03-08 in New York: it reads as 03:30 EDT.
    expect(formatInZone(instantOfWallTime('2026-03-08', { hour: 2, minute: 30, second: 0, millisecond: 0 }, 'America/New_York'), 'America/New_York')).toBe(
      '2026-03-08T03:30:00.000-04:00',
    );
    // 01:30 happens twice on 2026-11-01: the first (EDT) is chosen.
    expect(instantOfWallTime('2026-11-01', { hour: 1, minute: 30, second: 0, millisecond: 0 }, 'America/New_York')).toBe(at('2026-11-01T05:30:00Z'));
  });

  it('starts a day whose midnight is skipped at the jump', () => {
    // Santiago springs forward at 24:00 on 2026-09-05: 2026-09-06 begins at 01:00 local.
    const start = startOfLocalDay('2026-09-06', 'America/Santiago');
    expect(localDateAt(start, 'America/Santiago')).toBe('2026-09-06');
    expect(localDateAt(start - 1, 'America/Santiago')).toBe('2026-09-05');
  });

  it('formats instants with the offset in force', () => {
    expect(formatInZone(at('2026-03-08T05:00:00Z'), 'America/New_York')).toBe('2026-03-08T00:00:00.000-05:00');
    expect(formatInZone(at('2026-03-09T03:59:59.999Z'), 'America/New_York')).toBe('2026-03-08T23:59:59.999-04:00');
    expect(formatInZone(at('2026-03-08T05:00:00Z'), 'UTC')).toBe('2026-03-08T05:00:00.000+00:00');
  });

  it('tiles any span with consecutive local days, each containing exactly its own instants', () => {
    const zones = fc.constantFrom('UTC', 'America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'America/Santiago', 'Pacific/Apia');
    const instant = fc.integer({ min: at('2020-01-01T00:00:00Z'), max: at('2030-01-01T00:00:00Z') });
    fc.assert(
      fc.property(zones, instant, fc.integer({ min: 1, max: 40 * 24 }), (zone, from, hours) => {
        const to = from + hours * HOUR;
        const days = localDaysBetween(from, to, zone);
        expect(days[0]!.start).toBeLessThanOrEqual(from);
        expect(days.at(-1)!.end).toBeGreaterThan(to - 1);
        days.forEach((day, i) => {
          if (i > 0) expect(day.start).toBe(days[i - 1]!.end);
          expect(localDateAt(day.start, zone)).toBe(day.date);
          expect(localDateAt(day.end - 1, zone)).toBe(day.date);
          expect(localDateAt(day.end, zone)).not.toBe(day.date);
        });
      }),
      { numRuns: 200 },
    );
  });
});
