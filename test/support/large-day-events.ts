import { createHash } from 'node:crypto';
import type { StoredEvent } from '../../shared/tracking/stored-event';

const NAMES = ['page_view', 'page_view', 'page_view', 'view_item', 'add_to_cart', 'begin_checkout', 'purchase'];
const SOURCES: Array<[string, string, string] | null> = [
  ['facebook', 'paid_social', 'summer_sale_2026_lookalike'],
  ['google', 'cpc', 'brand_search_exact'],
  ['newsletter', 'email', 'weekly_digest_47'],
  null,
];
const hex = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The `index`-th of a day's events as the tracking API stores them, on the UTC day starting at
 * `dayStart`: a UUID eventId, one of `people` visitors (a fbp cookie each; a third of them also
 * logged in with an email hash, a user id and, some, a phone hash), UTM values on three in four.
 * Person `p` is the same person on every day, so a day's visitors are exactly
 * `min(events, people)` when every person has distinct identifiers.
 */
export function largeDayEvent(dayStart: number, index: number, people: number): StoredEvent {
  const person = index % people;
  const timestamp = new Date(dayStart + ((index * 2_880_007) % 86_400_000)).toISOString();
  const utm = SOURCES[index % SOURCES.length];
  const known = person % 3 === 0;
  const digest = hex(`event-${dayStart}-${index}`);
  return {
    eventId: `${digest.slice(0, 8)}-${digest.slice(8, 12)}-4${digest.slice(13, 16)}-a${digest.slice(17, 20)}-${digest.slice(20, 32)}`,
    eventIdSource: 'client',
    name: NAMES[index % NAMES.length]!,
    standard: true,
    timestamp,
    receivedAt: timestamp,
    ...(known ? { user: { emailHashes: [hex(`person${person}@example.com`)], userIds: [`customer-${person}`], ...(person % 2 === 0 ? { phoneHashes: [hex(`+1555${person}`)] } : {}) } } : {}),
    click: { fbp: `fb.1.${1_700_000_000_000 + person}.${1_000_000_000 + person}` },
    ...(utm ? { utm: { utm_source: utm[0], utm_medium: utm[1], utm_campaign: utm[2] } } : {}),
  };
}
