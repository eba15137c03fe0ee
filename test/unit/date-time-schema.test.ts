import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toValidationIssues } from '../../shared/http/zod-issues';
import { dateRangeSchema as dashboardDateRangeSchema } from '../../shared/schemas/dashboard-view';
import { isoDateSchema, isoInstantSchema, rangeBoundSchema, timeZoneSchema } from '../../shared/schemas/date-time';
import { queryAdsRequestSchema } from '../../shared/schemas/query-ads';
import { resolveDateRange } from '../../shared/time/date-range';

/** The bodies of issue P5's first finding, and their relatives: every one a 400, none a 500. */
const BAD_ZONES = ['Mars/Phobos', 'UTC+1', '', 'Europe/Paris ', ' UTC', '+01:00', '-05:00', 'Z', 'Europe/Paris/', '/UTC', 'Europe//Paris', 'x'.repeat(65), 'Europe\u0000Paris'];
const BAD_BOUNDS = [
  '2026-11-1', 'garbage', '11/01/2026', '2026-11-01 00:00', '2026-11-01T00:00:00+25:00', '2026-11-01T00:00+24:00', '2026-11-01T00:00:00+01:60',
  '2026-11-01T00:00:00+0100', '2026-11-01T24:00', '2026-11-01T10:60', '2026-11-01T10:00:60', '2026-02-30', '2026-13-01', '0999-12-31',
  '+2026-11-01', '2026-11-01T', '2026-11-01T10', '2026-11-01T10:00:00.1234', '2026-11-01t10:00', '2026-11-01T10:00z', ' 2026-11-01', '2026-11-01\n', '',
];
const GOOD_BOUNDS = ['2026-11-01', '2026-11-01T00:00', '2026-11-01T23:59:59', '2026-11-01T23:59:59.5', '2026-11-01T10:00Z', '2026-11-01T10:00:00.123+14:00', '2026-11-01T10:00-23:59', '2024-02-29', '1000-01-01', '9999-12-31'];

const ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/Argentina/Buenos_Aires', 'Etc/GMT+12', 'Pacific/Kiritimati'];

describe('time zones', () => {
  it.each(BAD_ZONES)('refuses %j as a zone', (zone) => {
    expect(timeZoneSchema.safeParse(zone).success).toBe(false);
  });

  it('takes IANA names and aliases in any case, and outputs one name per zone', () => {
    expect(timeZoneSchema.parse('Europe/Paris')).toBe('Europe/Paris');
    expect(timeZoneSchema.parse('europe/paris')).toBe('Europe/Paris');
    expect(timeZoneSchema.parse('UTC')).toBe('UTC');
    expect(timeZoneSchema.parse('Etc/UTC')).toBe('UTC');
    expect(timeZoneSchema.parse('Asia/Kolkata')).toBe(timeZoneSchema.parse('ASIA/CALCUTTA'));
  });
});

describe('dates and date-times', () => {
  it.each(BAD_BOUNDS)('refuses %j as a range bound', (bound) => {
    expect(rangeBoundSchema.safeParse(bound).success).toBe(false);
  });

  it.each(GOOD_BOUNDS)('takes %j as a range bound', (bound) => {
    expect(rangeBoundSchema.safeParse(bound).success).toBe(true);
  });

  it('takes only full date-times with seconds and an offset as instants', () => {
    for (const good of ['2026-03-01T10:00:00Z', '2026-03-01T10:00:00.123456789+05:30', '2026-03-01T10:00:00-00:00']) expect(isoInstantSchema.safeParse(good).success).toBe(true);
    for (const bad of ['2026-03-01T10:00Z', '2026-03-01T10:00:00', '2026-03-01T10:00:00+25:00', '2026-02-29T10:00:00Z', '2026-03-01', '2026-03-01T10:00:00.Z']) {
      expect(isoInstantSchema.safeParse(bad).success).toBe(false);
    }
    expect(isoDateSchema.safeParse('2028-02-29').success).toBe(true);
    expect(isoDateSchema.safeParse('2027-02-29').success).toBe(false);
  });

  it('resolves every accepted range, in every zone, to finite instants (property)', () => {
    const digits = (n: number) => fc.array(fc.constantFrom(...'0123456789'), { minLength: n, maxLength: n }).map((d) => d.join(''));
    // Text that is nearly a bound: right shape, any digits, so invalid days, hours and offsets abound.
    const nearBound = fc
      .tuple(digits(4), digits(2), digits(2), fc.option(fc.tuple(digits(2), digits(2), fc.option(digits(2)), fc.option(fc.constantFrom('Z', '+', '-').chain((sign) => (sign === 'Z' ? fc.constant('Z') : fc.tuple(digits(2), digits(2)).map(([h, m]) => `${sign}${h}:${m}`)))))))
      .map(([y, mo, d, time]) => `${y}-${mo}-${d}${time ? `T${time[0]}:${time[1]}${time[2] ? `:${time[2]}` : ''}${time[3] ?? ''}` : ''}`);
    fc.assert(
      fc.property(nearBound, nearBound, fc.constantFrom(...ZONES), (start, end, zone) => {
        if (!rangeBoundSchema.safeParse(start).success || !rangeBoundSchema.safeParse(end).success) return;
        const { start: from, end: to } = resolveDateRange({ start, end }, zone);
        expect(Number.isFinite(from) && Number.isFinite(to)).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});

describe('cross-field rules run only on valid members', () => {
  const base = { pixelId: 'px', measures: ['channel.spend'], dateRange: { start: '2026-11-01', end: '2026-11-07' }, compareDateRange: { start: '2026-10-01', end: '2026-10-07' } };
  const issuesOf = (body: unknown) => {
    const result = queryAdsRequestSchema.safeParse(body);
    return result.success ? [] : toValidationIssues(result.error);
  };

  it.each(BAD_ZONES)('answers query-ads with timezone %j by naming timezone alone', (timezone) => {
    expect(issuesOf({ ...base, timezone }).map((issue) => issue.path)).toEqual([['timezone']]);
  });

  it.each(BAD_BOUNDS)('answers query-ads with a bound %j by naming that bound alone, in either range', (bound) => {
    expect(issuesOf({ ...base, dateRange: { start: bound, end: '2026-11-07' } }).map((issue) => issue.path)).toEqual([['dateRange', 'start']]);
    expect(issuesOf({ ...base, compareDateRange: { start: '2026-10-01', end: bound } }).map((issue) => issue.path)).toEqual([['compareDateRange', 'end']]);
  });

  it('never throws, whatever the members hold (property)', () => {
    const anyBound = fc.oneof(fc.constantFrom(...BAD_BOUNDS, ...GOOD_BOUNDS), fc.string({ maxLength: 30 }), fc.jsonValue({ maxDepth: 1 }));
    const anyZone = fc.oneof(fc.constantFrom(...BAD_ZONES, ...ZONES), fc.string({ maxLength: 30 }), fc.jsonValue({ maxDepth: 1 }));
    fc.assert(
      fc.property(anyBound, anyBound, anyBound, anyBound, anyZone, fc.jsonValue({ maxDepth: 1 }), (a, b, c, d, timezone, currency) => {
        expect(() => issuesOf({ ...base, dateRange: { start: a, end: b }, compareDateRange: { start: c, end: d }, timezone, currency })).not.toThrow();
        expect(() => dashboardDateRangeSchema.safeParse({ start: a, end: b })).not.toThrow();
      }),
      { numRuns: 1_000 },
    );
  });

  it('reads the last accepted day, 9999-12-31, as a whole day (found by the property below)', () => {
    expect(resolveDateRange({ start: '9999-12-31', end: '9999-12-31' }, 'Pacific/Kiritimati')).toEqual({
      start: Date.parse('9999-12-30T10:00:00Z'),
      end: Date.parse('9999-12-31T10:00:00Z'),
    });
    expect(issuesOf({ ...base, dateRange: { start: '2026-11-01T10:00Z', end: '9999-12-31' } }).map((issue) => issue.path)).toEqual([['dateRange']]);
  });

  it('refuses a dashboard range with a +25:00 offset instead of storing it', () => {
    const result = dashboardDateRangeSchema.safeParse({ start: '2026-11-01T00:00:00+25:00', end: '2026-11-02' });
    expect(result.success).toBe(false);
    expect(toValidationIssues(result.error!).map((issue) => issue.path)).toEqual([['start']]);
  });
});
