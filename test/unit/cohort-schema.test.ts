import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toValidationIssues } from '../../shared/http/zod-issues';
import { queryCohortRequestSchema } from '../../shared/schemas/query-cohort';

const valid = { pixelId: 'px', granularity: 'month', measures: ['orders.customers_cohort'], dateRange: { start: '2026-01-01', end: '2026-06-30' } };
const issuesOf = (body: unknown) => {
  const result = queryCohortRequestSchema.safeParse(body);
  return result.success ? [] : toValidationIssues(result.error);
};

describe('POST /db-mgmt/api/query-cohort-analysis validation matrix', () => {
  const cases: Array<[string, Record<string, unknown>, string[], RegExp]> = [
    ['unknown top-level key', { dimensions: [] }, ['dimensions'], /dimensions/],
    ['missing granularity', { granularity: undefined }, ['granularity'], /.+/],
    ['granularity the cohorts do not take', { granularity: 'day' }, ['granularity'], /.+/],
    ['no measures', { measures: [] }, ['measures'], /.+/],
    ['31 measures', { measures: Array.from({ length: 31 }, () => 'orders.customers_cohort') }, ['measures'], /.+/],
    ['a query measure', { measures: ['orders.net_revenue'] }, ['measures', '0'], /Unknown cohort measure "orders.net_revenue"/],
    ['a measure object', { measures: [{ id: 'orders.customers_cohort' }] }, ['measures', '0'], /Unknown cohort measure/],
    ['missing dateRange', { dateRange: undefined }, ['dateRange'], /.+/],
    ['end before start', { dateRange: { start: '2026-03-02', end: '2026-03-01' } }, ['dateRange', 'end'], /end/],
    ['window too long', { dateRange: { start: '2020-01-01', end: '2026-01-01' } }, ['dateRange'], /at most 732 days/],
    ['negative periods', { periods: -1 }, ['periods'], /.+/],
    ['fractional periods', { periods: 1.5 }, ['periods'], /.+/],
    ['periods over the monthly cap', { periods: 37 }, ['periods'], /at most 36 for granularity month/],
    ['periods over the weekly cap', { granularity: 'week', periods: 105 }, ['periods'], /at most 104/],
    ['periods over the yearly cap', { granularity: 'year', periods: 11 }, ['periods'], /at most 10/],
    ['bad zone', { timezone: 'Mars/Olympus' }, ['timezone'], /IANA/],
    ['bad currency', { currency: 'usd' }, ['currency'], /ISO 4217/],
    ['filter on an events field', { filters: { field: 'events.name', op: 'equals', value: 'x' } }, ['filters', 'field'], /not available in context 'query_cohort'/],
    ['filter on customer type', { filters: { field: 'orders.customer_type', op: 'equals', value: 'new' } }, ['filters', 'field'], /query_cohort/],
    ['bad legacy viewFilters', { viewFilters: [{ field: 'channel.ad_id', op: 'equals', value: 'x' }] }, ['viewFilters', 'field'], /query_cohort/],
    ['filters and viewFilters', { filters: { field: 'orders.tag', op: 'equals', value: 'x' }, viewFilters: [] }, ['viewFilters'], /not both/],
    ['orderSettings unknown key', { orderSettings: { countRefunds: true } }, ['orderSettings', 'countRefunds'], /countRefunds/],
    ['orderSettings unknown attribution', { orderSettings: { refundDateAttribution: 'whenever' } }, ['orderSettings', 'refundDateAttribution'], /.+/],
  ];
  it.each(cases)('%s is 400 at the right path', (_name, change, path, message) => {
    const issues = issuesOf({ ...valid, ...change });
    const issue = issues.find((candidate) => candidate.path.join('.') === path.join('.'));
    expect(issue, JSON.stringify(issues)).toBeDefined();
    expect(issue!.message).toMatch(message);
  });

  it('fills the documented defaults', () => {
    expect(queryCohortRequestSchema.parse(valid)).toMatchObject({ periods: 12, timezone: 'UTC', currency: 'USD', filters: undefined, orderSettings: { countPendingOrders: false, refundDateAttribution: 'refund_date', exclusionFilters: [] } });
    expect(queryCohortRequestSchema.parse({ ...valid, granularity: 'week' }).periods).toBe(12);
    expect(queryCohortRequestSchema.parse({ ...valid, granularity: 'year' }).periods).toBe(3);
    expect(queryCohortRequestSchema.parse({ ...valid, viewFilters: [] }).filters).toBeUndefined();
    expect(queryCohortRequestSchema.parse({ ...valid, orderSettings: { refundDateAttribution: 'original_order_date' } }).orderSettings.refundDateAttribution).toBe('order_date');
  });

  it('never throws, whatever the body', () => {
    fc.assert(
      fc.property(
        fc.record({ granularity: fc.oneof(fc.constantFrom('week', 'month', 'year'), fc.jsonValue()), periods: fc.jsonValue(), dateRange: fc.jsonValue(), timezone: fc.jsonValue(), viewFilters: fc.jsonValue() }, { requiredKeys: [] }),
        (change) => {
          expect(() => queryCohortRequestSchema.safeParse({ ...valid, ...change })).not.toThrow();
        },
      ),
    );
  });
});
