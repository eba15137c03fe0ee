import { describe, expect, it } from 'vitest';
import { isValidBound, rangesOverlap, resolveDateRange } from '../../shared/time/date-range';

const at = (iso: string) => Date.parse(iso);

describe('date ranges', () => {
  it('reads date-only bounds as whole local days, the end inclusive', () => {
    expect(resolveDateRange({ start: '2026-03-01', end: '2026-03-31' }, 'UTC')).toEqual({
      start: at('2026-03-01T00:00:00Z'),
      end: at('2026-04-01T00:00:00Z'),
    });
    expect(resolveDateRange({ start: '2026-03-08', end: '2026-03-08' }, 'America/New_York')).toEqual({
      start: at('2026-03-08T05:00:00Z'),
      end: at('2026-03-09T04:00:00Z'),
    });
  });

  it('reads date-times with an offset as instants and without one as wall times in the zone', () => {
    expect(resolveDateRange({ start: '2026-03-01T10:00:00Z', end: '2026-03-01T12:30+02:00' }, 'Asia/Tokyo')).toEqual({
      start: at('2026-03-01T10:00:00Z'),
      end: at('2026-03-01T10:30:00Z'),
    });
    expect(resolveDateRange({ start: '2026-03-01T10:00', end: '2026-03-01T11:15:30.5' }, 'Asia/Tokyo')).toEqual({
      start: at('2026-03-01T01:00:00Z'),
      end: at('2026-03-01T02:15:30.500Z'),
    });
  });

  it.each(['2026-02-30', '2026-13-01', '2026-03-01T24:00', '2026-03-01T10:60', '03/01/2026', '2026-3-1', '2026-03-01T10:00:00+2'])(
    'rejects the malformed bound %s',
    (value) => expect(isValidBound(value)).toBe(false),
  );

  it('treats ranges as half-open when testing overlap', () => {
    const march = { start: at('2026-03-01T00:00:00Z'), end: at('2026-04-01T00:00:00Z') };
    expect(rangesOverlap(march, { start: at('2026-04-01T00:00:00Z'), end: at('2026-05-01T00:00:00Z') })).toBe(false);
    expect(rangesOverlap(march, { start: at('2026-03-31T23:00:00Z'), end: at('2026-05-01T00:00:00Z') })).toBe(true);
  });
});
