import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { journeyProjector } from '../../shared/attribution/journey-projector';
import type { ProjectedEntry } from '../../shared/pipeline/projector';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { unpackJourney } from '../../shared/store/journey-repository';
import { dayOf, markSuperseded, pageKey, writeEventPages } from '../../shared/store/event-repository';
import { eventTtl } from '../../shared/store/retention';
import type { StoredEvent } from '../../shared/tracking/stored-event';
import { visit } from '../support/attribution-fixtures';
import { wholeTable } from '../support/event-store';
import { useFreshTable } from '../support/fresh-table';

/**
 * Taking back a journey delivery that lost to an earlier one of its eventId: what it wrote is
 * read from its event page (which keeps it, listed as superseded), so nothing is kept per eventId
 * or per entry for it, and the state is that of the winners alone.
 */
const DAY_ONE = '2026-03-10';
const at = (hour: number) => `${DAY_ONE}T${String(hour).padStart(2, '0')}:00:00.000Z`;

/** A paid-social visit by a browser (its anonymous id and fbp), signed in when `email` is given; the eventId doubles as the ad id. */
const adVisit = (eventId: string, hour: number, anonymousId: string, email?: string): StoredEvent =>
  visit(at(hour), { anonymousId, ...(email ? { emailHashes: [email] } : {}) }, `https://shop.example/?utm_source=facebook&utm_medium=paid&utm_campaign=c&campaign_id=c1&ad_id=${eventId}`, {
    eventId,
    click: { fbp: `fb.1.1.${anonymousId}` },
  });

const entry = (entryId: string, events: StoredEvent[], superseded: ProjectedEntry['superseded'] = []): ProjectedEntry => ({ entryId, acceptedAt: at(23), events, superseded });

/** Every delivery each entry's page holds (by pixel and entry): a page keeps its lost deliveries too. */
const delivered = new Map<string, Map<string, StoredEvent>>();

/**
 * Projects entries as the pipeline does: their pages stored first (every delivery the entry has
 * had, those not among its stored `events` listed as superseded), the deliveries they won over
 * marked in their pages, then the projector.
 */
async function project(pixelId: string, ...entries: ProjectedEntry[]) {
  for (const { entryId, acceptedAt, events, superseded } of entries) {
    const all = delivered.get(`${pixelId}|${entryId}`) ?? new Map<string, StoredEvent>();
    for (const event of events) if (!all.has(event.eventId)) all.set(event.eventId, event);
    delivered.set(`${pixelId}|${entryId}`, all);
    const stored = new Set(events.map((event) => event.eventId));
    const days = new Set([...all.values()].map((event) => dayOf(event.timestamp)));
    await writeEventPages(
      [...days].map((day) => {
        const onDay = [...all.values()].filter((event) => dayOf(event.timestamp) === day);
        return { key: pageKey(pixelId, day, entryId), entryId, acceptedAt, events: onDay, superseded: onDay.filter((event) => !stored.has(event.eventId)).map((event) => event.eventId), ttl: eventTtl(acceptedAt) };
      }),
    );
    await markSuperseded(
      superseded.map(({ entryId: loser, eventId, day }) => ({ page: pageKey(pixelId, day, loser), eventIds: [eventId] })),
      eventTtl(acceptedAt),
    );
  }
  await journeyProjector.project({ pixelId, entries, orders: [] });
}

/** The pixel's journey items (identifiers, pages, order journeys) as a read sees them, and any pointer items. */
async function journeyState(pixelId: string) {
  const items = (await wholeTable()).filter((item) => String(item.PK).startsWith(`PIXEL#${pixelId}#`));
  const journeys = items
    .filter((item) => String(item.PK).includes('#AJ#') && item.SK !== 'GENERATION')
    .map(({ sz: _sz, ...item }) => unpackJourney(item))
    .filter((item) => item.SK !== 'JOURNEY' || Object.keys(item.l as object).length > 0 || Object.keys(item.t as object).length > 0)
    .map((item) => JSON.parse(JSON.stringify(item).replaceAll(pixelId, 'PIXEL')) as Record<string, unknown>)
    .sort((a, b) => (`${a.PK}|${a.SK}` < `${b.PK}|${b.SK}` ? -1 : 1));
  const pointers = items.filter((item) => String(item.PK).includes('#AJD#'));
  return { journeys, pointers };
}

const EMAIL = 'e'.repeat(64);

/**
 * Rewrites a pixel's group links (`eg:`) as the one delivery's links they were before group links
 * (`ev:<delivery>`), in maps, as items were kept then.
 */
async function toDeliveryLinks(pixelId: string, delivery: string) {
  for (const stored of (await wholeTable()).filter((item) => String(item.PK).startsWith(`PIXEL#${pixelId}#AJ#`) && item.SK === 'JOURNEY')) {
    const item = unpackJourney(stored);
    const l = Object.fromEntries(Object.entries((item.l ?? {}) as Record<string, unknown>).map(([key, value]) => [key.startsWith('eg:') ? `ev:${delivery}` : key, value]));
    await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...item, l, t: item.t ?? {} } }));
  }
}

/** Rewrites a pixel's identifier items with their maps unpacked, as earlier layouts kept them. */
async function toMaps(pixelId: string) {
  for (const stored of (await wholeTable()).filter((item) => String(item.PK).startsWith(`PIXEL#${pixelId}#AJ#`) && item.SK === 'JOURNEY')) {
    const { l = {}, t = {}, ...item } = unpackJourney(stored);
    await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...item, l, t } }));
  }
}

beforeAll(async () => {
  await useFreshTable();
});

describe('journey delivery pointers', () => {
  it('keeps nothing per delivery to take it back: no pointer items, however many events an entry has', async () => {
    const events = Array.from({ length: 30 }, (_, i) => adVisit(`many-${i}`, 10, `browser-${i % 3}`, i % 2 === 0 ? EMAIL : undefined));
    await project('px_ptr_count', entry('01KCOUNT000001', events));
    const { journeys, pointers } = await journeyState('px_ptr_count');
    expect(pointers).toEqual([]);
    expect(journeys.length).toBeGreaterThan(0);
  });

  it('takes back a delivery that lost to an earlier one from its event page: the state is that of the winner alone', async () => {
    // The later entry is projected first; then the earlier delivery of `dup` wins over it.
    const later = entry('01KLATER000001', [adVisit('dup', 12, 'late-browser', EMAIL), adVisit('kept', 12, 'late-browser', EMAIL)]);
    await project('px_ptr_retract', later);
    const winner = entry('01KEARLY000001', [adVisit('dup', 9, 'early-browser')], [{ entryId: '01KLATER000001', eventId: 'dup', day: DAY_ONE }]);
    await project('px_ptr_retract', { ...later, events: later.events.filter((event) => event.eventId !== 'dup') }, winner);

    // A clean run only ever saw the winning deliveries.
    await project('px_ptr_clean', entry('01KEARLY000001', [adVisit('dup', 9, 'early-browser')]));
    await project('px_ptr_clean', entry('01KLATER000001', [adVisit('kept', 12, 'late-browser', EMAIL)]));

    const retracted = await journeyState('px_ptr_retract');
    const clean = await journeyState('px_ptr_clean');
    expect(retracted.journeys).toEqual(clean.journeys);

    // A retried batch takes back the same delivery again: nothing changes.
    await project('px_ptr_retract', winner);
    expect((await journeyState('px_ptr_retract')).journeys).toEqual(clean.journeys);
  });

  it("keeps a group's link while another delivery of that group in the entry and day stands, client or server-assigned, and removes it with the last", async () => {
    const visit = (eventId: string, hour: number) => adVisit(eventId, hour, 'one-browser', EMAIL);
    const server = (eventId: string, hour: number): StoredEvent => ({ ...visit(eventId, hour), eventIdSource: 'server' });
    const later = entry('01KGROUP000002', [visit('g1', 12), visit('g2', 13), visit('g3', 14), server('s1', 15)]);
    await project('px_ptr_group', later);
    const remaining = (...taken: string[]) => ({ ...later, events: later.events.filter((event) => !taken.includes(event.eventId)) });
    const winner = (...eventIds: string[]) =>
      entry('01KGROUP000001', eventIds.map((eventId) => adVisit(eventId, 9, `first-${eventId}`)), eventIds.map((eventId) => ({ entryId: '01KGROUP000002', eventId, day: DAY_ONE })));
    const clean = async (pixelId: string, taken: string[], base = later) => {
      await project(pixelId, winner(...taken), { ...base, events: base.events.filter((event) => !taken.includes(event.eventId)) });
      return (await journeyState(pixelId)).journeys;
    };

    // One of three client deliveries taken back, then the two others in one batch: the server-assigned one still stands.
    await project('px_ptr_group', remaining('g2'), winner('g2'));
    expect((await journeyState('px_ptr_group')).journeys).toEqual(await clean('px_ptr_group_c1', ['g2']));
    await project('px_ptr_group', remaining('g1', 'g2', 'g3'), winner('g1', 'g2', 'g3'));
    const state = await journeyState('px_ptr_group');
    expect(state.journeys).toEqual(await clean('px_ptr_group_c2', ['g1', 'g2', 'g3']));
    expect(JSON.stringify(state.journeys)).toContain('eg:01KGROUP000002#');

    // Without the server-assigned delivery, the last client one taken back takes the link with it.
    const alone = entry('01KGROUP000002', [visit('g1', 12), visit('g2', 13)]);
    await project('px_ptr_group_last', alone);
    await project('px_ptr_group_last', { ...alone, events: [visit('g2', 13)] }, winner('g1'));
    expect(JSON.stringify((await journeyState('px_ptr_group_last')).journeys)).toContain('eg:01KGROUP000002#');
    await project('px_ptr_group_last', { ...alone, events: [] }, winner('g1', 'g2'));
    const last = await journeyState('px_ptr_group_last');
    expect(JSON.stringify(last.journeys)).not.toContain('eg:01KGROUP000002#');
    expect(last.journeys).toEqual(await clean('px_ptr_group_c3', ['g1', 'g2'], alone));
  });

  it('takes back a delivery projected with its own link (`ev:`, before group links) and a pointer item of an earlier layout, which is no longer needed', async () => {
    const later = entry('01KLEGACY00002', [adVisit('old', 12, 'legacy-browser', EMAIL)]);
    await project('px_ptr_legacy', later);
    // The layout before group links and per-page retraction: links keyed by delivery, a pointer item per client delivery.
    await toDeliveryLinks('px_ptr_legacy', 'old@01KLEGACY00002');
    await documentClient.send(new PutCommand({ TableName: tableName(), Item: { PK: 'PIXEL#px_ptr_legacy#AJD#old#01KLEGACY00002', SK: 'POINTER', ids: ['a:legacy-browser', `e:${EMAIL}`, 'f:fb.1.1.legacy-browser'].sort() } }));

    await project('px_ptr_legacy', { ...later, events: [] }, entry('01KLEGACY00001', [adVisit('old', 9, 'first-browser')], [{ entryId: '01KLEGACY00002', eventId: 'old', day: DAY_ONE }]));
    await project('px_ptr_legacy_clean', entry('01KLEGACY00001', [adVisit('old', 9, 'first-browser')]));

    expect((await journeyState('px_ptr_legacy')).journeys).toEqual((await journeyState('px_ptr_legacy_clean')).journeys);
  });
  it('puts items whole with their maps packed in one attribute, and reads, extends and takes back entries of items kept in maps alike', async () => {
    const first = entry('01KPACK0000002', [adVisit('p1', 12, 'pk', EMAIL), adVisit('q1', 12, 'pk', EMAIL)]);
    const second = entry('01KPACK0000003', [adVisit('b1', 14, 'pk', EMAIL)]);
    const winner = entry('01KPACK0000001', [adVisit('p1', 9, 'pk-first')], [{ entryId: '01KPACK0000002', eventId: 'p1', day: DAY_ONE }]);
    const withoutP1 = { ...first, events: first.events.filter((event) => event.eventId !== 'p1') };

    // Items in maps, as earlier layouts (and updates) keep them: extended, then a delivery taken back.
    await project('px_pack_maps', first);
    await toMaps('px_pack_maps');
    await project('px_pack_maps', second);
    await toMaps('px_pack_maps');
    await project('px_pack_maps', withoutP1, winner);

    await project('px_pack_clean', entry('01KPACK0000001', [adVisit('p1', 9, 'pk-first')]));
    await project('px_pack_clean', withoutP1);
    await project('px_pack_clean', second);

    expect((await journeyState('px_pack_maps')).journeys).toEqual((await journeyState('px_pack_clean')).journeys);
    const stored = (await wholeTable()).filter((item) => String(item.PK).startsWith('PIXEL#px_pack_clean#AJ#') && item.SK === 'JOURNEY');
    expect(stored.length).toBeGreaterThan(2);
    for (const item of stored) {
      expect(typeof item.j).toBe('string');
      expect(item).not.toHaveProperty('l');
      expect(item).not.toHaveProperty('t');
    }
  });
});
