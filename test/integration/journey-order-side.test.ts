import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { journeyProjector } from '../../shared/attribution/journey-projector';
import type { ProjectedEntry } from '../../shared/pipeline/projector';
import { documentClient, tableName } from '../../shared/store/dynamo-client';
import { orderJourneyKey, unpackJourney } from '../../shared/store/journey-repository';
import type { VersionedOrder } from '../../shared/analytics/store/order-store';
import type { StoredEvent } from '../../shared/tracking/stored-event';
import { visit } from '../support/attribution-fixtures';
import { wholeTable } from '../support/event-store';
import { useFreshTable } from '../support/fresh-table';

/**
 * An identifier's journey is two items: `JOURNEY`, which only events write (so the drain creates a
 * new identifier's with a blind batched put), and `ORDER`, its order side (imported orders' links,
 * an order's date and filings). Items written before the split keep the order side on `JOURNEY`:
 * both are read, and a date moved or forgotten later is taken out of either, so no rebuild is needed.
 */
const DAY = 86_400_000;
const START = Date.UTC(2026, 2, 1);
const EMAIL = 'c'.repeat(64);
const iso = (at: number) => new Date(at).toISOString();

function adVisit(eventId: string, at: number, anonymousId: string): StoredEvent {
  const url = `https://shop.example/?utm_source=facebook&utm_medium=paid&utm_campaign=c&campaign_id=c1&ad_id=${eventId}`;
  return visit(iso(at), { anonymousId, emailHashes: [EMAIL] }, url, { eventId, click: { fbp: `fb.1.1.${anonymousId}` } });
}

const order = (orderId: string, at: number, version: number): VersionedOrder =>
  ({ order: { orderId, orderDate: iso(at), customer: { emailHashes: [EMAIL], phoneHashes: [], userIds: [] } }, version }) as unknown as VersionedOrder;
const entry = (entryId: string, events: StoredEvent[]): ProjectedEntry => ({ entryId, acceptedAt: events[0]!.receivedAt, events, superseded: [] });

/** Each order's filed journey `{ a, j }` (the generation left out), by order id, from the pixel's day items. */
async function filedJourneys(pixelId: string): Promise<Record<string, unknown>> {
  const filed: Record<string, unknown> = {};
  for (const item of await wholeTable()) {
    if (item.PK !== `PIXEL#${pixelId}#AJ#` || !String(item.SK).startsWith('DAY#')) continue;
    for (const [orderId, { a, j }] of Object.entries((item.jo ?? {}) as Record<string, { a: number; j: string }>)) filed[`${String(item.SK).slice(4, 14)} ${orderId}`] = { a, j };
  }
  return filed;
}

/** Moves every order side of the pixel onto its `JOURNEY` item, as the layout before the split kept it. */
async function toOldLayout(pixelId: string): Promise<void> {
  const items = (await wholeTable()).filter((item) => String(item.PK).startsWith(`PIXEL#${pixelId}#AJ#`));
  for (const side of items.filter((item) => item.SK === 'ORDER')) {
    const found = items.find((item) => item.PK === side.PK && item.SK === 'JOURNEY');
    const journey = found ? unpackJourney(found) : { PK: side.PK, SK: 'JOURNEY', l: {}, t: {} };
    const { PK: _pk, SK: _sk, d, fd, ...links } = side;
    const l = { ...(journey.l as object), ...links };
    await documentClient.send(new PutCommand({ TableName: tableName(), Item: { ...journey, l, ...(d ? { d } : {}), ...(fd ? { fd } : {}) } }));
    await documentClient.send(new DeleteCommand({ TableName: tableName(), Key: { PK: side.PK, SK: side.SK } }));
  }
}

const project = (pixelId: string, batch: { entries?: ProjectedEntry[]; orders?: VersionedOrder[]; deletedOrders?: Array<{ orderId: string; version: number }> }) =>
  journeyProjector.project({ pixelId, entries: batch.entries ?? [], orders: batch.orders ?? [], ...(batch.deletedOrders ? { deletedOrders: batch.deletedOrders } : {}) });

beforeAll(async () => {
  await useFreshTable();
});

describe('journey order sides', () => {
  it("keeps what orders say on the identifier's order side and what events say on its JOURNEY item", async () => {
    await project('px_side', { orders: [order('side-1', START + 10 * DAY, 1)] });
    await project('px_side', { entries: [entry('01KSIDE0000001', [adVisit('v1', START + 5 * DAY, 'side-browser')])] });
    const items = (await wholeTable()).filter((item) => String(item.PK).startsWith('PIXEL#px_side#AJ#'));
    const email = items.filter((item) => item.PK === `PIXEL#px_side#AJ#e:${EMAIL}`);
    expect(email.map((item) => item.SK).sort()).toEqual(['JOURNEY', 'ORDER']);
    const journey = unpackJourney(email.find((item) => item.SK === 'JOURNEY')!);
    expect(Object.keys(journey.l as object).every((key) => key.startsWith('eg:'))).toBe(true);
    expect(Object.keys(email.find((item) => item.SK === 'ORDER')!)).toContain('or:side-1');
    const orderSide = items.find((item) => item.PK === 'PIXEL#px_side#AJ#o:side-1' && item.SK === 'ORDER')!;
    expect(orderSide.d).toEqual({ v: 1, at: iso(START + 10 * DAY) });
    // The visit five days before the order is in its journey.
    expect(JSON.stringify(await filedJourneys('px_side'))).toContain('v1@01KSIDE0000001');
  });

  it('reads order sides written on the JOURNEY item before the split, and moves and forgets a date kept there: the same journeys as the new layout throughout', async () => {
    const steps: Array<Parameters<typeof project>[1]> = [
      { entries: [entry('01KOLD00000001', [adVisit('w1', START + 2 * DAY, 'old-browser')])] },
      // The upgrade happens here, for the `old` pixel.
      { entries: [entry('01KOLD00000002', [adVisit('w2', START + 20 * DAY, 'old-browser-2')])] },
      // The order's date moves a month on: its journey moves day, and takes the later visit.
      { orders: [order('moved-1', START + 40 * DAY, 2)] },
      // Its every statement taken back: no journey.
      { deletedOrders: [{ orderId: 'moved-1', version: 3 }] },
    ];
    for (const pixelId of ['px_old', 'px_new']) await project(pixelId, { orders: [order('moved-1', START + 10 * DAY, 1), order('kept-1', START + 30 * DAY, 1)] });
    const before = await filedJourneys('px_new');
    expect(Object.keys(before).sort()).toEqual([`${iso(START + 10 * DAY).slice(0, 10)} moved-1`, `${iso(START + 30 * DAY).slice(0, 10)} kept-1`]);
    for (const [i, step] of steps.entries()) {
      if (i === 1) await toOldLayout('px_old');
      for (const pixelId of ['px_old', 'px_new']) await project(pixelId, step);
      expect(await filedJourneys('px_old')).toEqual(await filedJourneys('px_new'));
      if (i === 2) expect(Object.keys(await filedJourneys('px_new'))).toContain(`${iso(START + 40 * DAY).slice(0, 10)} moved-1`);
    }
    const final = await filedJourneys('px_old');
    expect(Object.keys(final)).toEqual([`${iso(START + 30 * DAY).slice(0, 10)} kept-1`]);
    expect(JSON.stringify(final)).toContain('w1@01KOLD00000001');
    // The date and filings kept on the old `o:` item are gone with the order.
    const old = (await wholeTable()).find((item) => item.PK === 'PIXEL#px_old#AJ#o:moved-1' && item.SK === 'JOURNEY');
    expect(old?.d).toBeUndefined();
    expect(old?.fd).toBeUndefined();
  });

  it("files a batch's orders of one day shard with one call, and order by order when a later resolution filed one of them", async () => {
    const at = START + 50 * DAY;
    const byShard = new Map<string, string[]>();
    for (let i = 0; i < 200; i++) {
      const sk = orderJourneyKey('px_group', `g-${i}`, at).SK;
      byShard.set(sk, [...(byShard.get(sk) ?? []), `g-${i}`]);
    }
    const [sk, ids] = [...byShard].find(([, ids]) => ids.length >= 4)!;
    const orderIds = ids.slice(0, 3);
    await project('px_group', { entries: [entry('01KGRP00000001', [adVisit('x1', at - 5 * DAY, 'group-browser')])] });
    // The shard exists (another order of the day is filed there): the three go in one call.
    await project('px_group', { orders: [order(ids[3]!, at, 1)] });
    const calls: string[] = [];
    const send = documentClient.send.bind(documentClient);
    const spy = vi.spyOn(documentClient, 'send').mockImplementation((async (command: unknown) => {
      if (command instanceof UpdateCommand && String(command.input.UpdateExpression).startsWith('SET jo.')) calls.push(String(command.input.UpdateExpression));
      return send(command as never);
    }) as never);
    try {
      await project('px_group', { orders: orderIds.map((orderId) => order(orderId, at, 1)) });
    } finally {
      spy.mockRestore();
    }
    expect(calls).toHaveLength(1);
    const filed = await filedJourneys('px_group');
    for (const orderId of orderIds) expect(JSON.stringify(filed[`${iso(at).slice(0, 10)} ${orderId}`])).toContain('x1@01KGRP00000001');

    // A later resolution's entry for one of them stands; the others take the new visit.
    const pinned = { g: 1e9, a: at, j: '[]' };
    await documentClient.send(new UpdateCommand({ TableName: tableName(), Key: { PK: 'PIXEL#px_group#AJ#', SK: sk }, UpdateExpression: 'SET jo.#o = :e', ExpressionAttributeNames: { '#o': orderIds[0]! }, ExpressionAttributeValues: { ':e': pinned } }));
    await project('px_group', { entries: [entry('01KGRP00000002', [adVisit('x2', at - DAY, 'group-browser')])] });
    const after = await filedJourneys('px_group');
    expect(after[`${iso(at).slice(0, 10)} ${orderIds[0]}`]).toEqual({ a: at, j: '[]' });
    for (const orderId of orderIds.slice(1)) expect(JSON.stringify(after[`${iso(at).slice(0, 10)} ${orderId}`])).toContain('x2@01KGRP00000002');
  });
});
