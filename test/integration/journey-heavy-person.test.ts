import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { journeyProjector } from '../../shared/attribution/journey-projector';
import { drainAll } from '../../shared/pipeline/drain';
import { documentClient } from '../../shared/store/dynamo-client';
import { MAX_JOURNEY_BYTES, readRangeJourneys, writeInitialJourneys } from '../../shared/store/journey-repository';
import { appendLogEntry } from '../../shared/store/log-repository';
import type { VersionedOrder } from '../../shared/analytics/store/order-store';
import type { StoredEvent } from '../../shared/tracking/stored-event';
import { wholeTable } from '../support/event-store';
import { useFreshTable } from '../support/fresh-table';

/**
 * Persons real data makes heavy: a returning customer with a long history, an identifier shared by
 * thousands of events. A batch must cost writes for the journeys it can change, not for the
 * person's whole history, and no item may pass DynamoDB's 400 KB, or the pipeline stalls on it.
 */
const DAY = 86_400_000;
const START = Date.UTC(2026, 0, 1);
const EMAIL = 'a'.repeat(64);
const iso = (at: number) => new Date(at).toISOString();
/** Entries of 90 page views and a purchase, all with one fbp: about 430 KB of touchpoints on one identifier. */
const SHARED_ENTRIES = 40;

function pageView(eventId: string, at: number, user: StoredEvent['user'], click?: StoredEvent['click']): StoredEvent {
  const url = `https://shop.example/?utm_source=facebook&utm_medium=paid&utm_campaign=c&campaign_id=c1&ad_id=${eventId}`;
  return { eventId, eventIdSource: 'client', name: 'page_view', standard: true, timestamp: iso(at), receivedAt: iso(at), user, ...(click ? { click } : {}), page: { url }, utm: { utm_source: 'facebook', utm_medium: 'paid', utm_campaign: 'c' } };
}

function purchase(eventId: string, at: number, orderId: string, user: StoredEvent['user'], click?: StoredEvent['click']): StoredEvent {
  return { eventId, eventIdSource: 'client', name: 'purchase', standard: true, timestamp: iso(at), receivedAt: iso(at), user, ...(click ? { click } : {}), data: { orderId, value: 10, currency: 'EUR' } };
}

const order = (orderId: string, at: number): VersionedOrder => ({ order: { orderId, orderDate: iso(at), customer: { emailHashes: [EMAIL] } }, version: 1 }) as unknown as VersionedOrder;

/** Each order's filed journey `{ a, j }` (the generation left out), by order id, from the pixel's day items. */
async function filedJourneys(pixelId: string): Promise<Map<string, unknown>> {
  const filed = new Map<string, unknown>();
  for (const item of await wholeTable()) {
    if (item.PK !== `PIXEL#${pixelId}#AJ#` || !String(item.SK).startsWith('DAY#')) continue;
    for (const [orderId, { a, j }] of Object.entries((item.jo ?? {}) as Record<string, { a: number; j: string }>)) filed.set(orderId, { a, j });
  }
  return filed;
}

/** Counts the order journeys `send` files (`SET jo.<orderId>`, one or several a call) while `work` runs. */
async function countFilings(work: () => Promise<void>): Promise<number> {
  let filings = 0;
  const send = documentClient.send.bind(documentClient);
  const spy = vi.spyOn(documentClient, 'send').mockImplementation((async (command: unknown) => {
    // One call may file several orders of a day shard (`SET jo.#o0 = :e0, jo.#o1 = :e1`): each counts.
    if (command instanceof UpdateCommand && String(command.input.UpdateExpression).startsWith('SET jo.')) filings += String(command.input.UpdateExpression).split('jo.').length - 1;
    return send(command as never);
  }) as never);
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return filings;
}

beforeAll(async () => {
  await useFreshTable();
});

describe('journeys of heavy persons', () => {
  it('a returning customer with 150 orders: a new visit files again only the orders of the 90 days after it, and every journey stays exact', async () => {
    // One visit a day, from an ad, signed in with the same email, and an order: one person with 150 orders.
    const history: Array<{ entryId: string; event: StoredEvent }> = [];
    const orders: VersionedOrder[] = [];
    for (let day = 0; day < 150; day++) {
      const at = START + day * DAY + 10 * 3_600_000;
      const entryId = `01KHIST${String(day).padStart(5, '0')}`;
      history.push({ entryId, event: pageView(`v${day}`, at, { anonymousId: `browser${day}`, emailHashes: [EMAIL] }) });
      history.push({ entryId, event: purchase(`p${day}`, at + 1_800_000, `o${day}`, { anonymousId: `browser${day}`, emailHashes: [EMAIL] }) });
      orders.push(order(`o${day}`, at + 1_800_000));
    }
    await writeInitialJourneys('px_heavy', history, orders);

    // A new browser signs in on day 100 at noon, after that day's order: it merges into the
    // person, and its touchpoint can only reach the orders of days 101-149.
    const visit = { entryId: '01KVISIT00001', event: pageView('late-visit', START + 100 * DAY + 12 * 3_600_000, { anonymousId: 'new-browser', emailHashes: [EMAIL] }) };
    const project = (delivery: typeof visit) =>
      journeyProjector.project({ pixelId: 'px_heavy', entries: [{ entryId: delivery.entryId, acceptedAt: delivery.event.receivedAt, events: [delivery.event], superseded: [] }], orders: [] });
    expect(await countFilings(() => project(visit))).toBe(49);

    // A visit after the last order changes no journey, whatever the person's history.
    const after = { entryId: '01KVISIT00002', event: pageView('after-visit', START + 200 * DAY, { anonymousId: 'browser3', emailHashes: [EMAIL] }) };
    expect(await countFilings(() => project(after))).toBe(0);

    // The same as filing every order of the whole history at once.
    await writeInitialJourneys('px_heavy_whole', [...history, visit, after], orders);
    const incremental = await filedJourneys('px_heavy');
    expect(incremental.size).toBe(150);
    expect(incremental).toEqual(await filedJourneys('px_heavy_whole'));
    const journeys = await readOrderJourneys('px_heavy', [{ orderId: 'o120', orderDate: iso(START + 120 * DAY + 10.5 * 3_600_000) }]);
    expect(journeys.get('o120')!.map((touchpoint) => touchpoint.id)).toContain('late-visit@01KVISIT00001');
  });

  it('an identifier shared by thousands of events does not stall the pipeline: its entries go to pages, journeys are capped, no item passes 400 KB', async () => {
    const pixelId = 'px_shared';
    // One fbp on every event (a shared browser id), and no anonymous id: every touchpoint lands on
    // that identifier's item, and every order's person is all of them.
    const click = { fbp: 'fb.1.1596403881668.1116446470' };
    const entries = Array.from({ length: SHARED_ENTRIES }, (_, e) => {
      const at = START + e * 3_600_000;
      const events = Array.from({ length: 90 }, (_, i) => pageView(`e${e}-${i}`, at + i * 1_000, undefined, click));
      events.push(purchase(`e${e}-buy`, at + 100_000, `shared-o${e}`, undefined, click));
      return { pixelId, entryId: `01KSHARED${String(e).padStart(5, '0')}`, acceptedAt: iso(at + 200_000), events };
    });
    for (const entry of entries) await appendLogEntry(entry);
    await drainAll();

    const items = (await wholeTable()).filter((item) => String(item.PK).startsWith(`PIXEL#${pixelId}#`));
    const log = items.filter((item) => String(item.PK).endsWith('#LOG'));
    expect(log.length).toBe(SHARED_ENTRIES);
    expect(log.every((item) => typeof item.projectedAt === 'string')).toBe(true);
    for (const item of items.filter((item) => !String(item.PK).endsWith('#LOG'))) {
      expect(Buffer.byteLength(JSON.stringify(item)), `${item.PK} ${item.SK}`).toBeLessThan(400_000);
    }
    const shared = items.filter((item) => item.PK === `PIXEL#${pixelId}#AJ#f:${click.fbp}`);
    expect(shared.length).toBeGreaterThan(1);
    expect(Object.keys(shared.reduce((all, item) => ({ ...all, ...(item.t as object) }), {})).length).toBe(SHARED_ENTRIES * 90);

    // The last order's journey: the latest of the person's 3,600 touchpoints before it, as many as the cap holds.
    const last = entries.at(-1)!;
    const orderDate = iso(START + (SHARED_ENTRIES - 1) * 3_600_000 + 100_000);
    const journey = (await readOrderJourneys(pixelId, [{ orderId: `shared-o${SHARED_ENTRIES - 1}`, orderDate }])).get(`shared-o${SHARED_ENTRIES - 1}`)!;
    expect(journey.length).toBeGreaterThan(500);
    expect(journey.length).toBeLessThan(SHARED_ENTRIES * 90);
    expect(JSON.stringify(journey).length).toBeLessThan(2 * MAX_JOURNEY_BYTES);
    expect(journey.at(-1)!.id).toBe(`e${SHARED_ENTRIES - 1}-89@${last.entryId}`);
    expect(journey.map((touchpoint) => touchpoint.at)).toEqual(journey.map((touchpoint) => touchpoint.at).sort((a, b) => a - b));
    // Every order has its journey.
    const all = await readOrderJourneys(pixelId, entries.map((entry, e) => ({ orderId: `shared-o${e}`, orderDate: iso(START + e * 3_600_000 + 100_000) })));
    expect(all.size).toBe(SHARED_ENTRIES);
  }, 120_000);
});

/** The journeys of these orders, read as a query reads them: over the range holding them all. */
async function readOrderJourneys(pixelId: string, orders: ReadonlyArray<{ orderId: string; orderDate: string }>) {
  const times = orders.map((order) => Date.parse(order.orderDate));
  const journeysOf = await readRangeJourneys(pixelId, [{ start: Math.min(...times), end: Math.max(...times) + 1 }]);
  return journeysOf(orders);
}
