import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { journeyProjector } from '../../shared/attribution/journey-projector';
import { drainAll } from '../../shared/pipeline/drain';
import { projectLogEntries } from '../../shared/pipeline/project-log-entries';
import { BatchWriteCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { bulkDocumentClient, documentClient } from '../../shared/store/dynamo-client';
import { unpackJourney } from '../../shared/store/journey-repository';
import { readOrders } from '../../shared/analytics/store/order-store';
import { readEvents } from '../../shared/analytics/store/event-facts';
import { appendLogEntry, type LogEntry } from '../../shared/store/log-repository';
import type { StoredEvent } from '../../shared/tracking/stored-event';
import { wholeTable } from './event-store';
import { useFreshTable } from './fresh-table';

/**
 * The pipeline's exactly-once property, against whichever store the calling file points the SDK
 * at (dynalite, DynamoDB Local): whatever fails, repeats or arrives out of order, the store ends
 * exactly as after one clean pass. The store is compared item by item, with only what depends
 * on when projection ran left out (a projected log entry's `ttl`, an order's write counter).
 */
export function exactlyOnceSuite(store: string): void {
  describe(`exactly-once projection (${store})`, () => {
    beforeAll(async () => {
      await useFreshTable();
    });

    it('ends as a clean run after a fault at any single store call of the consumer, each in turn', async () => {
      const clean = await run('fault_clean', async () => void (await drainAll()));
      // Every store is in the comparison: the analytics store's orders and events as read...
      expect(JSON.stringify(clean)).toContain('"orderId":"o1"');
      // ...and the attribution journeys (links, touchpoints...
      expect(JSON.stringify(clean)).toMatch(/#AJ#a:anon0".*"t":\{"[^}]+/);
      // ...and the order journeys filed by order day.
      expect(JSON.stringify(clean)).toMatch(/"SK":"DAY#2026-03-1\d#\d\d","jo":\{"o\d"/);

      // How many store calls a clean pass makes: every point call, and every batched write (log
      // entries marked projected, event pages, orders' transactions); each of them is failed once, in turn. Bulk reads
      // are left out only to keep the run short: a failed read writes nothing.
      const clients = [documentClient, bulkDocumentClient];
      const faultable = (client: unknown, command: unknown) => client === documentClient || command instanceof BatchWriteCommand || command instanceof TransactWriteCommand;
      let calls = 0;
      const counters = clients.map((client) => {
        const send = client.send.bind(client);
        return vi.spyOn(client, 'send').mockImplementation((async (command: unknown) => {
          if (faultable(client, command)) calls++;
          return send(command as never);
        }) as never);
      });
      await run('fault_count', async () => void (await drainAll()));
      for (const counter of counters) counter.mockRestore();
      expect(calls).toBeGreaterThan(10);

      for (let nth = 1; nth <= calls; nth++) {
        const state = await run(`fault_${nth}`, async () => {
          let seen = 0;
          const faults = clients.map((client) => {
            const send = client.send.bind(client);
            return vi.spyOn(client, 'send').mockImplementation((async (command: unknown) => {
              if (faultable(client, command) && ++seen === nth) throw Object.assign(new Error(`injected fault at call ${nth}`), { name: 'InternalServerError' });
              return send(command as never);
            }) as never);
          });
          await drainAll().catch(() => undefined);
          for (const fault of faults) fault.mockRestore();
          await drainAll();
        });
        expect(state, `fault at store call ${nth} of ${calls}`).toEqual(clean);
      }
    // Every faultable call of a clean pass fails once, in its own run: a few hundred runs on a shared machine.
    }, 900_000);

    it('ends as a clean run whatever the grouping, order and repetition of projections (fast-check)', async () => {
      let runId = 0;
      await fc.assert(
        fc.asyncProperty(entriesArbitrary, fc.array(fc.array(fc.nat(9), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 6 }), async (specs, schedule) => {
          const id = runId++;
          // The core stores (events, markers, orders, log) and every registered read model.
          const clean = await run(`prop_clean_${id}`, async () => void (await drainAll()), specs);
          const shuffled = await run(
            `prop_mixed_${id}`,
            async (pixelId, entries) => {
              for (const group of schedule) await projectLogEntries(pixelId, group.map((index) => entries[index % entries.length]!), {});
              await drainAll();
            },
            specs,
          );
          expect(shuffled).toEqual(clean);
        }),
        { numRuns: 25 },
      );
    }, 600_000);
  });
}

type EventSpec = { id: string | null; kind: 'page' | 'paid' | 'refund'; minute: number; order: 'o1' | 'o2' };

const eventArbitrary: fc.Arbitrary<EventSpec> = fc.record({
  id: fc.option(fc.constantFrom('a', 'b', 'c', 'd'), { nil: null, freq: 4 }),
  kind: fc.constantFrom('page', 'paid', 'refund'),
  minute: fc.constantFrom(0, 30, 1439, 1500),
  order: fc.constantFrom('o1', 'o2'),
});
const entriesArbitrary = fc.array(fc.array(eventArbitrary, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 });

/** The default scenario: duplicates across and within entries, a later copy on another day, 30 ids in one entry (two marker batches). */
const SCENARIO: EventSpec[][] = [
  [{ id: 'a', kind: 'page', minute: 0, order: 'o1' }, { id: 'p1', kind: 'paid', minute: 10, order: 'o1' }, { id: null, kind: 'page', minute: 20, order: 'o1' }],
  [{ id: 'p1', kind: 'paid', minute: 1500, order: 'o1' }, { id: 'r1', kind: 'refund', minute: 40, order: 'o1' }, { id: 'a', kind: 'paid', minute: 50, order: 'o2' }, { id: 'a', kind: 'page', minute: 51, order: 'o2' }],
  Array.from({ length: 30 }, (_, i): EventSpec => ({ id: `bulk-${i}`, kind: i % 10 === 0 ? 'paid' : 'page', minute: i, order: i % 20 === 0 ? 'o1' : 'o2' })),
  [{ id: 'r1', kind: 'refund', minute: 40, order: 'o1' }, { id: 'bulk-3', kind: 'paid', minute: 3, order: 'o2' }],
];

function eventOf(spec: EventSpec, index: number, entryIndex: number, receivedAt: string): StoredEvent {
  const timestamp = new Date(Date.UTC(2026, 2, 10) + spec.minute * 60_000).toISOString();
  const base = {
    eventId: spec.id ?? `SRV${entryIndex}X${index}`,
    eventIdSource: spec.id === null ? ('server' as const) : ('client' as const),
    standard: true,
    timestamp,
    receivedAt,
  };
  // Pages land from an ad (a touchpoint, kept under the browser's anonymous id); purchases tie the
  // browser to a user and an order (links in the identity graph).
  const anonymousId = `anon${spec.minute % 2}`;
  if (spec.kind === 'page') {
    const url = `https://shop.example/${entryIndex}?utm_source=fb&campaign_id=c${entryIndex}`;
    return { ...base, name: 'page_view', user: { anonymousId }, page: { url }, utm: { utm_source: 'fb' } };
  }
  if (spec.kind === 'paid') return { ...base, name: 'purchase', user: { userIds: [`u${entryIndex}`], anonymousId }, data: { orderId: spec.order, value: 10 + entryIndex, currency: 'EUR' } };
  return { ...base, name: 'purchase', data: { orderId: spec.order, financialStatus: 'refunded', refunds: [{ amount: 5, processedAt: timestamp }] } };
}

/** Appends the scenario's entries to a fresh pixel's log (in an order other than log order), projects them with `project`, returns the pixel's normalised state. */
async function run(
  name: string,
  project: (pixelId: string, entries: LogEntry[]) => Promise<void>,
  specs: EventSpec[][] = SCENARIO,
): Promise<unknown> {
  // A table per run keeps the comparison to this run's items and the scans short.
  await useFreshTable();
  const pixelId = `px_${name}`;
  const entries = specs.map((events, entryIndex): LogEntry => {
    const acceptedAt = new Date(Date.UTC(2026, 2, 11, 0, 0, entryIndex)).toISOString();
    return { pixelId, entryId: `01KENTRY${String(entryIndex).padStart(4, '0')}`, acceptedAt, events: events.map((spec, i) => eventOf(spec, i, entryIndex, acceptedAt)) };
  });
  for (const entry of [...entries].reverse()) await appendLogEntry(entry);
  await project(pixelId, entries);
  return snapshot(pixelId);
}

async function snapshot(pixelId: string): Promise<unknown> {
  // The analytics store as a query reads it: which files hold its rows depends on the path a run
  // took (a retry in a larger batch writes another file), what a read finds must not.
  const span = { start: Date.UTC(2026, 2, 1), end: Date.UTC(2026, 2, 31) };
  const analytics = { orders: await readOrders(pixelId, new Date(span.start), new Date(span.end)), events: (await readEvents(pixelId, span)).sort((a, b) => (a.eventId < b.eventId ? -1 : 1)) };
  // A journey item's maps as a read takes them, whether packed (`j`) or not: which form an item has depends on the path a run took.
  const mine = journeysAsRead((await wholeTable()).filter((item) => String(item.PK).startsWith(`PIXEL#${pixelId}#`)).map((item) => (String(item.PK).includes('#AJ#') ? unpackJourney(item) : item)));
  const text = JSON.stringify(
    mine
      .filter((item) => !String(item.PK).includes('#PARQUET#'))
      .map((item) => {
        // `stamp` (the dedup index's) is random per write: like `version`, it tells writes apart, not content.
        const { version: _version, stamp: _stamp, ...rest } = item;
        const copy: Record<string, unknown> = { ...rest };
        if (String(item.PK).endsWith('#LOG')) {
          delete copy.ttl;
          delete copy.projectedAt;
        }
        if (copy.data instanceof Uint8Array) copy.data = JSON.parse(gunzipSync(copy.data).toString('utf8'));
        if (copy.superseded instanceof Set) copy.superseded = [...copy.superseded].sort();
        if (typeof copy.sources === 'string') copy.sources = JSON.parse(copy.sources);
        // An order whose every statement was taken back is a tombstone that only carries the
        // version on: every read skips it, so it reads as no order at all.
        if (copy.deleted === true && String(item.PK).includes('#ORDER#')) return undefined;
        // Read models copy the order's write counter (`v`) to refuse stale states; like the
        // order's own `version`, it counts writes, not what was written, so it is left out. So are
        // tombstones (an entry without facts, left where an order was before its date moved):
        // they only stop a stale state from coming back, and every read skips them.
        let maps = 0;
        let liveMaps = 0;
        for (const map of ['o', 'r'] as const) {
          if (copy[map] === null || typeof copy[map] !== 'object') continue;
          maps++;
          const live = Object.entries(copy[map] as Record<string, { f?: string }>).filter(([, entry]) => entry.f !== undefined);
          if (live.length === 0) delete copy[map];
          else {
            liveMaps++;
            copy[map] = Object.fromEntries(live.map(([orderId, { f }]) => [orderId, { f }]));
          }
        }
        if (maps > 0 && liveMaps === 0) return undefined;
        if (String(item.PK).includes('#QP#')) {
          // The pointer of a deleted order points nowhere: no different from no pointer.
          if (Array.isArray(copy.keys) && copy.keys.length === 0) return undefined;
          delete copy.v;
        }
        // The person resolutions' generation counts resolutions, not what they found: like the
        // order's write counter, it is left out (the counter itself and each item's `g`).
        // So is the order store's version an order's date is kept with (`d.v`).
        if (item.SK === 'GENERATION') return undefined;
        if (String(item.PK).includes('#AJ#') && copy.jo !== null && typeof copy.jo === 'object') {
          const journeys = Object.entries(copy.jo as Record<string, { g: number }>).map(([orderId, { g: _g, ...entry }]) => [orderId, entry]);
          // A day whose every order journey moved to another day reads as no day.
          if (journeys.length === 0) return undefined;
          copy.jo = Object.fromEntries(journeys);
        }
        if (copy.fd instanceof Set) copy.fd = [...copy.fd].sort();
        // A journey item's `sz` counts the bytes written to it, a retry's again: like the write
        // counters, it tells writes apart, not content (it only decides when pages open).
        if (String(item.PK).includes('#AJ#')) delete copy.sz;
        if (String(item.PK).includes('#AJ#') && copy.d !== null && typeof copy.d === 'object') {
          const { v: _v, ...date } = copy.d as { v: number };
          copy.d = date;
        }
        // A journey item whose every entry was taken back reads as no item, as in a run that never wrote it.
        if (item.SK === 'JOURNEY' && copy.d === undefined && Object.keys((copy.l ?? {}) as object).length === 0 && Object.keys((copy.t ?? {}) as object).length === 0) return undefined;
        // A day's event facts: their gzipped rows less the deliveries taken back since (`x`), as a
        // read sees them; a later put of the entry's item leaves the same deliveries out itself.
        if (copy.z instanceof Uint8Array) {
          const lost = (copy.x ?? new Set()) as Set<string>;
          const rows = JSON.parse(gunzipSync(copy.z).toString('utf8')) as Array<[string, ...unknown[]]>;
          copy.e = Object.fromEntries(rows.filter(([eventId]) => !lost.has(eventId)).map(([eventId, ...fact]) => [eventId, fact]));
          delete copy.z;
          delete copy.x;
        }
        // A day's event facts whose every delivery was taken back read as no facts at all.
        if (copy.e !== null && typeof copy.e === 'object' && Object.keys(copy.e as object).length === 0) return undefined;
        return copy;
      })
      .filter((item) => item !== undefined)
      .sort((a, b) => (`${a.PK}|${a.SK}` < `${b.PK}|${b.SK}` ? -1 : 1))
      .concat([{ analytics }]),
  );
  return JSON.parse(text.replaceAll(pixelId, 'PIXEL'));
}

/**
 * An identifier's journey as a read sees it (`mergeSides` in journey-repository.ts): its `JOURNEY`
 * item with its order side (`ORDER`) folded in: imported orders' links in `l`, the newer date,
 * the filings of both. Where a fact is kept (a purchase's new `o:` item holds its date, a retried
 * batch puts it on the order side) depends on the path a run took, not on what it stored.
 */
function journeysAsRead(items: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const sides = new Map(items.filter((item) => String(item.PK).includes('#AJ#') && item.SK === 'ORDER').map((item) => [item.PK as string, item]));
  const merged = items.filter((item) => !sides.has(item.PK as string) || (item.SK !== 'ORDER' && item.SK !== 'JOURNEY'));
  const journeys = new Map(items.filter((item) => sides.has(item.PK as string) && item.SK === 'JOURNEY').map((item) => [item.PK as string, item]));
  for (const [PK, side] of sides) {
    const journey = journeys.get(PK) ?? { PK, SK: 'JOURNEY', l: {}, t: {} };
    const { PK: _pk, SK: _sk, d, fd, ...links } = side as { PK: string; SK: string; d?: { v: number }; fd?: Set<string> };
    const held = journey.d as { v: number } | undefined;
    const date = held && (!d || held.v > d.v) ? held : d;
    const filed = new Set([...((journey.fd as Set<string> | undefined) ?? []), ...(fd ?? [])]);
    const { d: _d, fd: _fd, ...rest } = journey;
    merged.push({ ...rest, l: { ...(journey.l as object), ...links }, ...(date ? { d: date } : {}), ...(filed.size > 0 ? { fd: filed } : {}) });
  }
  return merged;
}
