import fc from 'fast-check';
import { STANDARD_EVENT_NAMES } from '../../shared/tracking/event-names';

/** The receipt time unit tests validate against. */
export const RECEIVED_AT = new Date('2026-03-10T12:00:00.000Z');

/** The upstream example purchase, as a client would send it. */
export function purchaseEvent(overrides: Record<string, unknown> = {}) {
  return {
    name: 'purchase',
    eventId: 'evt-10421',
    timestamp: '2026-03-10T11:59:00Z',
    user: { emails: ['  Jane.Doe@Example.com '], phones: ['+1 (415) 555-0100'], userIds: ['cust_889'] },
    ipAddress: '203.0.113.5',
    page: { url: 'https://shop.example/checkout?utm_source=google&utm_medium=cpc&utm_campaign=spring', referrer: 'https://www.google.com/', title: 'Checkout' },
    click: { fbc: 'fb.1.1554763741205.AbCdEf', gclid: 'xyz' },
    data: {
      orderId: '10421',
      value: 99.9,
      currency: 'USD',
      items: [{ id: 'SKU1', name: 'Tee', price: 49.95, quantity: 2 }],
      sourceName: 'web',
      tags: ['vip'],
      paymentGateway: 'stripe',
      coupon: 'SPRING10',
    },
    ...overrides,
  };
}

export function pageView(overrides: Record<string, unknown> = {}) {
  return { name: 'page_view', page: { url: 'https://shop.example/' }, ...overrides };
}

const customName = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_]{0,99}$/);
const primitive = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
/** Keys that are not standard `data` keys (those have types of their own). */
const customKey = fc.stringMatching(/^custom_[a-z0-9_]{1,12}$/);
export const customValue = fc.oneof(primitive, fc.array(primitive, { maxLength: 5 }));

const isoTimestamp = fc
  .integer({ min: RECEIVED_AT.getTime() - 700 * 86_400_000, max: RECEIVED_AT.getTime() + 60_000 })
  .chain((ms) => fc.constantFrom(new Date(ms).toISOString(), new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'), new Date(ms + 3_600_000).toISOString().replace('Z', '+01:00')));

/** Any event the API accepts. */
export const validEventArbitrary = fc.record(
  {
    name: fc.oneof(fc.constantFrom(...STANDARD_EVENT_NAMES), customName),
    eventId: fc.stringMatching(/^[\x21-\x7E]{1,128}$/),
    timestamp: isoTimestamp,
    user: fc.record(
      {
        emails: fc.array(fc.emailAddress().filter((email) => email.length <= 254), { maxLength: 3 }),
        phones: fc.array(fc.stringMatching(/^\+?[0-9]{6,15}$/), { maxLength: 3 }),
        userIds: fc.array(fc.string({ minLength: 1, maxLength: 20 }), { maxLength: 3 }),
      },
      { requiredKeys: [] },
    ),
    ipAddress: fc.oneof(fc.ipV4(), fc.ipV6()),
    page: fc.record({ url: fc.webUrl({ withQueryParameters: true }), referrer: fc.oneof(fc.constant(''), fc.webUrl()), title: fc.string({ maxLength: 50 }) }, { requiredKeys: [] }),
    click: fc.record({ fbc: fc.string({ minLength: 1, maxLength: 30 }), fbp: fc.string({ minLength: 1, maxLength: 30 }), gclid: fc.string({ minLength: 1, maxLength: 30 }), ttclid: fc.string({ minLength: 1, maxLength: 30 }) }, { requiredKeys: [] }),
    data: fc.record(
      {
        orderId: fc.string({ minLength: 1, maxLength: 30 }),
        value: fc.double({ min: 0, max: 1e9, noNaN: true }),
        currency: fc.string({ minLength: 1, maxLength: 10 }),
        items: fc.array(fc.record({ id: fc.string({ maxLength: 10 }), price: fc.double({ noNaN: true, noDefaultInfinity: true }), quantity: fc.nat(100) }), { maxLength: 3 }),
        custom: fc.dictionary(customKey, customValue, { maxKeys: 5 }),
      },
      { requiredKeys: [] },
    ).map(({ custom, ...known }) => ({ ...known, ...custom })),
  },
  { requiredKeys: ['name'] },
);
