import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newEventId } from '../../shared/tracking/event-id';
import { normalizeEmail, normalizePhone } from '../../shared/tracking/identity';
import { toStoredEvent } from '../../shared/tracking/stored-event';
import { storedEventSchema } from '../../shared/tracking/stored-event';
import { utmOf } from '../../shared/tracking/utm';
import { purchaseEvent, RECEIVED_AT, validEventArbitrary } from '../support/event-fixtures';
import { trackingEventSchema } from '../../shared/tracking/event-schema';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('email normalisation', () => {
  it.each([
    ['  Jane.Doe@Example.COM ', 'jane.doe@example.com'],
    ['jane.doe+shop@gmail.com', 'jane.doe+shop@gmail.com'],
    ['JANE@EXAMPLE.COM\n', 'jane@example.com'],
  ])('%j becomes %j (gmail dots and +tags are kept)', (raw, normal) => {
    expect(normalizeEmail(raw)).toBe(normal);
  });

  it.each(['jane', 'jane@', '@example.com', 'jane doe@example.com', 'a@b@c', `${'a'.repeat(250)}@b.co`])('rejects %j', (raw) => {
    expect(normalizeEmail(raw)).toBeUndefined();
  });

  it('is idempotent and ignores case and surrounding space (property)', () => {
    fc.assert(
      fc.property(fc.emailAddress().filter((email) => email.length <= 254), fc.constantFrom('', ' ', '\t'), (email, pad) => {
        const normal = normalizeEmail(`${pad}${email.toUpperCase()}${pad}`);
        expect(normal).toBe(email.toLowerCase());
        expect(normalizeEmail(normal!)).toBe(normal);
      }),
    );
  });
});

describe('phone normalisation', () => {
  it.each([
    ['+1 (415) 555-0100', '+14155550100'],
    ['+44 20 7946 0958', '+442079460958'],
    ['415.555.0100', '4155550100'],
    [' 0049-30-123456 ', '004930123456'],
  ])('%j becomes %j', (raw, normal) => {
    expect(normalizePhone(raw)).toBe(normal);
  });

  it.each(['12345', '+1234567890123456', '555-CALL-NOW', '++14155550100', '1415555+0100', ''])('rejects %j', (raw) => {
    expect(normalizePhone(raw)).toBeUndefined();
  });

  it('hashes the same number the same however it is formatted (property)', () => {
    const formatting = fc.constantFrom(' ', '-', '.', '(', ')', '');
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{6,15}$/), fc.array(formatting, { minLength: 20, maxLength: 20 }), (digits, separators) => {
        const formatted = `+${[...digits].map((digit, i) => digit + separators[i]).join('')}`;
        expect(normalizePhone(formatted)).toBe(`+${digits}`);
      }),
    );
  });
});

describe('the stored event', () => {
  it('keeps identity only as SHA-256 of the normal forms, parses UTM parameters, and normalises the time to UTC', () => {
    const stored = toStoredEvent(trackingEventSchema.parse(purchaseEvent({ timestamp: '2026-03-10T12:59:00+01:00' })), {
      eventId: 'evt-10421',
      eventIdSource: 'client',
      receivedAt: RECEIVED_AT,
    });
    expect(stored).toMatchObject({
      eventId: 'evt-10421',
      eventIdSource: 'client',
      name: 'purchase',
      standard: true,
      timestamp: '2026-03-10T11:59:00.000Z',
      receivedAt: '2026-03-10T12:00:00.000Z',
      user: { emailHashes: [sha256('jane.doe@example.com')], phoneHashes: [sha256('+14155550100')], userIds: ['cust_889'] },
      utm: { utm_source: 'google', utm_medium: 'cpc', utm_campaign: 'spring' },
      click: { fbc: 'fb.1.1554763741205.AbCdEf', gclid: 'xyz' },
      data: { orderId: '10421', value: 99.9, currency: 'USD', coupon: 'SPRING10' },
    });
    expect(JSON.stringify(stored)).not.toMatch(/jane|415/i);
  });

  it('defaults the time to the receipt time and drops an empty referrer', () => {
    const stored = toStoredEvent({ name: 'page_view', page: { url: 'https://shop.example/', referrer: '' } }, { eventId: 'e', eventIdSource: 'server', receivedAt: RECEIVED_AT });
    expect(stored).toEqual({
      eventId: 'e',
      eventIdSource: 'server',
      name: 'page_view',
      standard: true,
      timestamp: RECEIVED_AT.toISOString(),
      receivedAt: RECEIVED_AT.toISOString(),
      page: { url: 'https://shop.example/' },
    });
  });

  it('has the documented shape for any accepted event, with no raw email anywhere (property)', () => {
    fc.assert(
      fc.property(validEventArbitrary, (input) => {
        const stored = toStoredEvent(trackingEventSchema.parse(input), { eventId: 'e', eventIdSource: 'server', receivedAt: RECEIVED_AT });
        expect(storedEventSchema.safeParse(stored).success).toBe(true);
        const text = JSON.stringify(stored);
        for (const email of input.user?.emails ?? []) expect(text).not.toContain(email.toLowerCase());
      }),
      { numRuns: 200 },
    );
  });
});

describe('UTM parameters', () => {
  it('reads the five parameters, decoded, and ignores others', () => {
    expect(utmOf('https://s.example/p?utm_source=news%20letter&utm_medium=email&utm_campaign=x&utm_term=t&utm_content=c&utm_id=9&gclid=g')).toEqual({
      utm_source: 'news letter',
      utm_medium: 'email',
      utm_campaign: 'x',
      utm_term: 't',
      utm_content: 'c',
    });
  });

  it('is undefined without parameters, for empty ones, and for no URL', () => {
    expect(utmOf('https://s.example/p?q=1')).toBeUndefined();
    expect(utmOf('https://s.example/p?utm_source=')).toBeUndefined();
    expect(utmOf(undefined)).toBeUndefined();
  });
});

describe('server-assigned event ids', () => {
  it('are 26-character ULIDs that sort by time', () => {
    const earlier = newEventId(new Date('2026-03-10T12:00:00.000Z'));
    const later = newEventId(new Date('2026-03-10T12:00:00.001Z'));
    expect(earlier).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(earlier < later).toBe(true);
    expect(newEventId(RECEIVED_AT)).not.toBe(newEventId(RECEIVED_AT));
  });
});
