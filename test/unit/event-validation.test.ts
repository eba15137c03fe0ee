import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EVENT_PROBLEM_CODES, EventsValidationError, type EventProblem } from '../../shared/tracking/ingest-errors';
import { parseIngestBody } from '../../shared/tracking/parse-ingest-body';
import { customValue, pageView, purchaseEvent, RECEIVED_AT, validEventArbitrary } from '../support/event-fixtures';

function problemsOf(body: Record<string, unknown>, receivedAt = RECEIVED_AT): EventProblem[] {
  try {
    parseIngestBody(body, receivedAt);
  } catch (error) {
    if (error instanceof EventsValidationError) return error.problems;
    throw error;
  }
  return [];
}

/** [index, path, code] of each problem: what a client reads to find and fix it. */
const located = (body: Record<string, unknown>) => problemsOf(body).map(({ index, path, code }) => [index, path.join('.'), code]);

describe('the two forms', () => {
  it('reads a body with `events` as a batch and anything else as one event', () => {
    expect(parseIngestBody({ events: [purchaseEvent(), pageView()] }, RECEIVED_AT)).toMatchObject({ form: 'batch', events: [{ name: 'purchase' }, { name: 'page_view' }] });
    expect(parseIngestBody(purchaseEvent(), RECEIVED_AT)).toMatchObject({ form: 'single', events: [{ name: 'purchase' }] });
  });

  it('accepts a body pixelId in either form and drops it from the event', () => {
    expect(parseIngestBody({ pixelId: 'px_1', events: [pageView()] }, RECEIVED_AT).events).toEqual([pageView()]);
    expect(parseIngestBody({ ...pageView(), pixelId: 'px_1' }, RECEIVED_AT).events).toEqual([pageView()]);
  });

  it('accepts any valid event, alone or in a batch of up to 100 (property)', () => {
    fc.assert(
      fc.property(fc.array(validEventArbitrary, { minLength: 1, maxLength: 100 }), (events) => {
        expect(problemsOf({ events })).toEqual([]);
        expect(problemsOf(events[0] as Record<string, unknown>)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('accepts every custom name matching the pattern up to 100 characters, and no other (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (name) => {
        const valid = /^[a-zA-Z][a-zA-Z0-9_]*$/.test(name) && name.length <= 100;
        expect(problemsOf({ name }).length === 0).toBe(valid);
      }),
    );
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{0,99}$/), (name) => {
        expect(problemsOf({ name })).toEqual([]);
      }),
    );
  });

  it('accepts any primitive or flat array of primitives under a custom data key, and rejects objects and nested arrays (property)', () => {
    fc.assert(
      fc.property(customValue, (value) => {
        expect(problemsOf(pageView({ data: { anything: value } }))).toEqual([]);
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.object(), fc.array(fc.array(fc.integer()), { minLength: 1 }), fc.array(fc.object(), { minLength: 1 })), (value) => {
        expect(located(pageView({ data: { anything: value } }))).toEqual([[0, 'data.anything', 'nested_value']]);
      }),
    );
  });
});

describe('the validation matrix: one problem, located by event index, path and code', () => {
  const batchOf = (event: Record<string, unknown>) => ({ events: [pageView(), pageView(), event] });

  it.each<[string, Record<string, unknown>, string, string]>([
    ['a missing name', { page: { url: 'https://shop.example/' } }, 'name', 'required'],
    ['an empty name', pageView({ name: '' }), 'name', 'invalid_format'],
    ['a name starting with a digit', pageView({ name: '1st_visit' }), 'name', 'invalid_format'],
    ['a name with a dash', pageView({ name: 'page-view' }), 'name', 'invalid_format'],
    ['a name of a number', pageView({ name: 7 }), 'name', 'invalid_type'],
    ['an eventId with a space', pageView({ eventId: 'a b' }), 'eventId', 'invalid_format'],
    ['an eventId over 128 characters', pageView({ eventId: 'e'.repeat(129) }), 'eventId', 'too_long'],
    ['a timestamp without a zone', pageView({ timestamp: '2026-03-10T11:00:00' }), 'timestamp', 'invalid_format'],
    ['a timestamp that is a date', pageView({ timestamp: '2026-03-10' }), 'timestamp', 'invalid_format'],
    ['a timestamp 6 minutes ahead', pageView({ timestamp: '2026-03-10T12:06:00Z' }), 'timestamp', 'timestamp_in_future'],
    ['a timestamp 731 days old', pageView({ timestamp: '2024-03-09T11:59:00Z' }), 'timestamp', 'timestamp_too_old'],
    ['an email that is not one', pageView({ user: { emails: ['jane.example.com'] } }), 'user.emails.0', 'invalid_format'],
    ['a phone with letters', pageView({ user: { phones: ['call me'] } }), 'user.phones.0', 'invalid_format'],
    ['a phone too short', pageView({ user: { phones: ['12345'] } }), 'user.phones.0', 'invalid_format'],
    ['a single email string instead of a list', pageView({ user: { emails: 'jane@example.com' } }), 'user.emails', 'invalid_type'],
    ['11 emails', pageView({ user: { emails: Array.from({ length: 11 }, (_, i) => `u${i}@example.com`) } }), 'user.emails', 'too_long'],
    ['an unknown user key', pageView({ user: { email: 'jane@example.com' } }), 'user.email', 'unknown_key'],
    ['an IP address that is not one', pageView({ ipAddress: '300.1.1.1' }), 'ipAddress', 'invalid_format'],
    ['a relative page URL', pageView({ page: { url: '/checkout' } }), 'page.url', 'invalid_format'],
    ['a page URL with another scheme', pageView({ page: { url: 'ftp://shop.example/' } }), 'page.url', 'invalid_format'],
    ['a referrer that is not a URL', pageView({ page: { referrer: 'google' } }), 'page.referrer', 'invalid_format'],
    ['an unknown click id', pageView({ click: { msclkid: 'x' } }), 'click.msclkid', 'unknown_key'],
    ['an unknown event key', pageView({ properties: {} }), 'properties', 'unknown_key'],
    ['a currency over 10 characters', pageView({ data: { currency: 'US DOLLARS!' } }), 'data.currency', 'too_long'],
    ['an empty currency', pageView({ data: { currency: '' } }), 'data.currency', 'too_short'],
    ['a negative value', pageView({ data: { value: -1 } }), 'data.value', 'out_of_range'],
    ['a value sent as text', pageView({ data: { value: '99.90' } }), 'data.value', 'invalid_type'],
    ['an orderId that is a number', pageView({ data: { orderId: 10421 } }), 'data.orderId', 'invalid_type'],
    ['items that are not a list', pageView({ data: { items: { id: 'SKU1' } } }), 'data.items', 'invalid_type'],
    ['an item price sent as text', pageView({ data: { items: [{ id: 'SKU1', price: '49.95' }] } }), 'data.items.0.price', 'invalid_type'],
    ['a nested object in an item', pageView({ data: { items: [{ id: 'SKU1', dimensions: { w: 1 } }] } }), 'data.items.0.dimensions', 'nested_value'],
    ['a nested custom object', pageView({ data: { shipping: { method: 'ups' } } }), 'data.shipping', 'nested_value'],
    ['a nested custom array', pageView({ data: { matrix: [[1, 2]] } }), 'data.matrix', 'nested_value'],
    ['a custom array of 101 values', pageView({ data: { many: Array.from({ length: 101 }, (_, i) => i) } }), 'data.many', 'too_long'],
    ['an unknown financial status', pageView({ data: { financialStatus: 'captured' } }), 'data.financialStatus', 'invalid_value'],
    ['a tag that is not text', pageView({ data: { tags: ['vip', 3] } }), 'data.tags.1', 'invalid_type'],
    ['a refund without its date', pageView({ data: { refunds: [{ amount: 5 }] } }), 'data.refunds.0.processedAt', 'required'],
    ['a refund with an unknown key', pageView({ data: { refunds: [{ amount: 5, processedAt: '2026-03-10T11:00:00Z', reason: 'x' }] } }), 'data.refunds.0.reason', 'unknown_key'],
  ])('%s', (_, event, path, code) => {
    expect(located(event)).toEqual([[0, path, code]]);
    expect(located(batchOf(event))).toEqual([[2, `events.2.${path}`, code]]);
  });

  it('accepts a name of exactly 100 characters and rejects 101', () => {
    expect(located(pageView({ name: `a${'b'.repeat(99)}` }))).toEqual([]);
    expect(located(pageView({ name: `a${'b'.repeat(100)}` }))).toEqual([[0, 'name', 'too_long']]);
  });

  it('accepts a currency of exactly 10 characters and timestamps at both bounds', () => {
    expect(located(pageView({ data: { currency: 'ABCDEFGHIJ' } }))).toEqual([]);
    expect(located(pageView({ timestamp: '2026-03-10T12:05:00Z' }))).toEqual([]);
    expect(located(pageView({ timestamp: '2024-03-10T12:00:00Z' }))).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['an empty batch', { events: [] }, 'too_short'],
    ['101 events', { events: Array.from({ length: 101 }, () => pageView()) }, 'too_long'],
    ['events that are not a list', { events: pageView() }, 'invalid_type'],
  ])('rejects %s at the body level (index null)', (_, body, code) => {
    expect(located(body)).toEqual([[null, 'events', code]]);
  });

  it('accepts exactly 100 events', () => {
    expect(located({ events: Array.from({ length: 100 }, () => pageView()) })).toEqual([]);
  });

  it('rejects an unknown key beside `events` at the body level', () => {
    expect(located({ events: [pageView()], name: 'purchase' })).toEqual([[null, 'name', 'unknown_key']]);
  });

  it('lists every problem of every event, body-level first, then by event', () => {
    const body = {
      events: [pageView(), pageView({ name: '9', data: { currency: 'x'.repeat(11) } }), pageView(), pageView({ timestamp: '2030-01-01T00:00:00Z', extra: 1 })],
      batchId: 'b1',
    };
    expect(located(body)).toEqual([
      [null, 'batchId', 'unknown_key'],
      [1, 'events.1.name', 'invalid_format'],
      [1, 'events.1.data.currency', 'too_long'],
      [3, 'events.3.extra', 'unknown_key'],
      [3, 'events.3.timestamp', 'timestamp_in_future'],
    ]);
  });

  it('uses only the documented problem codes, and never echoes an email or phone in a message', () => {
    const body = { events: [pageView({ user: { emails: ['jane at example.com'], phones: ['555-CALL-NOW'] }, data: { x: { y: 1 } } })] };
    const problems = problemsOf(body);
    expect(problems.length).toBe(3);
    for (const problem of problems) {
      expect(EVENT_PROBLEM_CODES).toContain(problem.code);
      expect(problem.message).not.toMatch(/jane|CALL/);
    }
  });
});
