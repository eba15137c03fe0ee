import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toValidationIssues } from '../../shared/http/zod-issues';
import { queryRequestSchema } from '../../shared/schemas/query-measures';

const valid = { pixelId: 'px', measures: ['orders.orders'], dateRange: { start: '2026-03-01', end: '2026-03-31' } };
const issuesOf = (body: unknown) => {
  const result = queryRequestSchema.safeParse(body);
  return result.success ? [] : toValidationIssues(result.error);
};

describe('POST /db-mgmt/api/query validation matrix', () => {
  const cases: Array<[string, Record<string, unknown>, string[], RegExp]> = [
    ['unknown top-level key', { extra: 1 }, ['extra'], /extra/],
    ['hostile key', JSON.parse('{"__proto__": {"x": 1}}'), ['__proto__'], /__proto__/],
    ['no measures', { measures: [] }, ['measures'], /.+/],
    ['31 measures', { measures: Array.from({ length: 31 }, () => 'orders.orders') }, ['measures'], /.+/],
    ['unknown measure', { measures: ['orders.nope'] }, ['measures', '0'], /Unknown measure "orders.nope"/],
    ['measure object with unknown key', { measures: [{ id: 'orders.orders', pacing: true }] }, ['measures', '0', 'pacing'], /pacing/],
    ['query-ads-only context is fine, unknown namespace is not', { measures: ['attribution.x'] }, ['measures', '0'], /Unknown measure/],
    ['6 dimensions', { dimensions: ['orders.tag', 'orders.currency', 'orders.source_name', 'orders.payment_gateway', 'orders.customer_type', 'orders.tag'] }, ['dimensions'], /.+/],
    ['unknown dimension', { dimensions: ['orders.colour'] }, ['dimensions', '0'], /Unknown dimension/],
    ['measure split by another namespace', { measures: ['events.count'], dimensions: ['orders.source_name'] }, ['dimensions', '0'], /Measure 'events.count' cannot be split by dimension 'orders.source_name'/],
    ['core measure split', { measures: ['core.roas'], dimensions: ['channel.ad_id'] }, ['dimensions', '0'], /core.roas/],
    ['repeated dimension', { dimensions: ['orders.tag', 'orders.tag'] }, ['dimensions'], /once/],
    ['bad granularity', { granularity: 'fortnight' }, ['granularity'], /.+/],
    ['missing dateRange', { dateRange: undefined }, ['dateRange'], /.+/],
    ['bad date', { dateRange: { start: '2026-02-30', end: '2026-03-01' } }, ['dateRange', 'start'], /Must be a date/],
    ['year before 1000', { dateRange: { start: '0999-12-31', end: '2026-03-01' } }, ['dateRange', 'start'], /Must be a date/],
    ['offset past 23 hours', { dateRange: { start: '2026-03-01T00:00:00+25:00', end: '2026-03-02' } }, ['dateRange', 'start'], /Must be a date/],
    ['end before start', { dateRange: { start: '2026-03-02', end: '2026-03-01' } }, ['dateRange', 'end'], /end/],
    ['range too long', { dateRange: { start: '2020-01-01', end: '2026-01-01' } }, ['dateRange'], /at most 732 days/],
    ['overlapping compare', { compareDateRange: { start: '2026-03-15', end: '2026-04-15' } }, ['compareDateRange'], /overlap/],
    ['bad zone', { timezone: 'Mars/Olympus' }, ['timezone'], /IANA/],
    ['bad zone with a range', { timezone: 'Not/AZone', granularity: 'hour' }, ['timezone'], /IANA/],
    ['bad currency', { currency: 'usd' }, ['currency'], /ISO 4217/],
    ['too many buckets', { granularity: 'hour', dateRange: { start: '2025-01-01', end: '2025-12-31' } }, ['granularity'], /coarser granularity or a shorter dateRange/],
    ['second buckets over the cap', { granularity: 'second', dateRange: { start: '2026-03-01', end: '2026-03-01' } }, ['granularity'], /10,000 time buckets/],
    ['filter on an unknown field', { filters: { field: 'orders.colour', op: 'equals', value: 'x' } }, ['filters', 'field'], /Unknown filter field/],
    ['filter field of another context', { filters: { field: 'channel.ad_name', op: 'equals', value: 'x' } }, ['filters', 'field'], /not available in context 'query_measures'/],
    ['filter operator the field does not take', { filters: { field: 'orders.customer_type', op: 'contains', value: 'new' } }, ['filters', 'op'], /not supported/],
    ['filter value outside the field values', { filters: { field: 'orders.customer_type', op: 'equals', value: 'old' } }, ['filters', 'value'], /not a value/],
    ['or mixing namespaces', { filters: { or: [{ field: 'orders.tag', op: 'equals', value: 'x' }, { field: 'events.name', op: 'equals', value: 'x' }] } }, ['filters'], /cannot mix fields of orders and events/],
    ['not mixing namespaces', { filters: { not: { and: [{ field: 'orders.tag', op: 'equals', value: 'x' }, { field: 'channel.ad_id', op: 'equals', value: 'x' }] } } }, ['filters'], /cannot mix/],
    ['orderSettings string boolean', { orderSettings: { countPendingOrders: 'true' } }, ['orderSettings', 'countPendingOrders'], /.+/],
    ['orderSettings unknown attribution', { orderSettings: { refundDateAttribution: 'whenever' } }, ['orderSettings', 'refundDateAttribution'], /.+/],
    ['orderSettings operator not allowed for the field', { orderSettings: { exclusionFilters: [{ name: 'x', enabled: true, conditionGroups: [{ logic: 'and', conditions: [{ field: 'sourceName', operator: 'greater_than', value: 1 }] }] }] } }, ['orderSettings', 'exclusionFilters', '0', 'conditionGroups', '0', 'conditions', '0', 'operator'], /not allowed/],
    ['orderSettings 51 filters', { orderSettings: { exclusionFilters: Array.from({ length: 51 }, () => ({ name: 'x', enabled: true, conditionGroups: [{ logic: 'and', conditions: [{ field: 'value', operator: 'equals', value: 1 }] }] })) } }, ['orderSettings', 'exclusionFilters'], /.+/],
    ['orderSettings unknown key', { orderSettings: { countRefunds: true } }, ['orderSettings', 'countRefunds'], /countRefunds/],
  ];
  it.each(cases)('%s is 400 at the right path', (_name, change, path, message) => {
    const issues = issuesOf({ ...valid, ...change });
    expect(issues.length).toBeGreaterThan(0);
    const issue = issues.find((candidate) => candidate.path.join('.') === path.join('.'));
    expect(issue, JSON.stringify(issues)).toBeDefined();
    expect(issue!.message).toMatch(message);
  });

  it('accepts the documented forms, with defaults', () => {
    const parsed = queryRequestSchema.parse({
      ...valid,
      measures: ['orders.orders', { id: 'channel.spend' }, 'orders.orders'],
      filters: { and: [{ field: 'orders.tag', op: 'equals', value: 'x' }, { or: [{ field: 'events.name', op: 'equals', value: 'a' }, { field: 'events.utm_source', op: 'in', value: ['b'] }] }] },
    });
    expect(parsed).toMatchObject({
      measures: ['orders.orders', 'channel.spend'],
      dimensions: [],
      granularity: 'none',
      timezone: 'UTC',
      currency: 'USD',
      compareDateRange: undefined,
      orderSettings: { countPendingOrders: false, countVoidedOrders: false, refundDateAttribution: 'refund_date', exclusionFilters: [] },
    });
    expect(queryRequestSchema.parse({ ...valid, orderSettings: { refundDateAttribution: 'original_order_date' } }).orderSettings.refundDateAttribution).toBe('order_date');
    expect(queryRequestSchema.parse({ ...valid, granularity: 'hour', dateRange: { start: '2026-01-01', end: '2026-06-30' } }).compareDateRange).toEqual({ start: '2025-07-04', end: '2025-12-31' });
  });

  it('never throws, whatever the body', () => {
    const bound = fc.oneof(fc.string(), fc.constantFrom('2026-03-08', '2026-03-08T02:30', '1970-01-01', '2999-12-31', '2026-03-08T02:30:00+14:00', '2026-11-01T01:30'));
    fc.assert(
      fc.property(
        fc.record({
          timezone: fc.oneof(fc.string(), fc.constantFrom('America/New_York', 'Pacific/Kiritimati', 'Australia/Lord_Howe', '+05:30', 'UTC', 'Etc/GMT+12')),
          granularity: fc.constantFrom('none', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'),
          dateRange: fc.record({ start: bound, end: bound }),
          compareDateRange: fc.option(fc.record({ start: bound, end: bound }), { nil: undefined }),
        }),
        (change) => {
          expect(() => queryRequestSchema.safeParse({ ...valid, ...change })).not.toThrow();
        },
      ),
      { numRuns: 300 },
    );
  });
});
