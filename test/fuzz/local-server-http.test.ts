import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, type RouteDefinition, type RouteId } from '../../lib/routes';
import { SCOPES } from '../../shared/auth/scopes';
import { eventLines, mintKey, pipelineDrained, startLocalServer, type RunningServer } from '../support/local-server';
import { assertDocumentedResponse } from '../support/openapi-responses';
import { bodyText, errorBodyProblems, ROUTE_FUZZ, withStorableNumbers } from '../support/route-fuzz';

/*
 * The same routes over real HTTP, through `npm start`'s program: bodies as raw bytes the
 * in-process suite cannot send (invalid UTF-8, a byte-order mark, NUL bytes, bodies over the
 * limits, chunked uploads). Bounded to a few hundred requests. Every answer is below 500, a 4xx
 * is documented and publishes nothing, and the server keeps serving afterwards. (What is stored
 * is compared request by request in route-table.test.ts.)
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const PIXEL = 'px_http_fuzz';
const NO_SUCH_VIEW = '3f0c8a52-6f0e-4a47-9d0b-2b1c7c1f5e11';

let server: RunningServer;
let headers: Record<string, string>;

beforeAll(async () => {
  server = await startLocalServer();
  // Thousands of requests on one key: a quota (tested in rate-limits.test.ts) must not answer them.
  const key = await mintKey(server, PIXEL, SCOPES.join(','), '--rate-limit', '1000000/1s', '--events-rate-limit', '1000000/1s');
  headers = { 'x-api-key': key.apiKey, 'x-pixel-id': PIXEL };
});
afterAll(async () => {
  await server?.stop();
});

/** A concrete path for a route: path parameters filled with a well-formed id that names no view. */
const pathOf = (route: RouteDefinition) => route.path.replace(/\{\w+\}/g, NO_SUCH_VIEW);

const sampleBody = (id: RouteId): string => {
  const [parts] = fc.sample(ROUTE_FUZZ[id].valid({ pixelId: PIXEL, viewId: NO_SUCH_VIEW }), { numRuns: 1, seed: 7 });
  return parts?.body === undefined ? '{}' : bodyText(withStorableNumbers(parts.body));
};

const INVALID_UTF8 = [Buffer.from([0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf0, 0x28, 0x8c, 0x28]), Buffer.from([0xc0, 0xaf])];

/** Raw bodies: a valid body with bytes spliced in, random bytes, a BOM, NULs, UTF-16, nothing. */
const rawBody = (id: RouteId): fc.Arbitrary<Buffer> => {
  const valid = Buffer.from(sampleBody(id), 'utf8');
  return fc.oneof(
    fc.tuple(fc.nat(), fc.constantFrom(...INVALID_UTF8)).map(([at, bytes]) => {
      const cut = at % (valid.length + 1);
      return Buffer.concat([valid.subarray(0, cut), bytes, valid.subarray(cut)]);
    }),
    fc.uint8Array({ maxLength: 2_000 }).map((bytes) => Buffer.from(bytes)),
    fc.constantFrom(
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), valid]),
      Buffer.concat([valid, Buffer.from([0])]),
      Buffer.from([0]),
      Buffer.alloc(0),
      Buffer.from('{"a":"\u0000"}'),
      Buffer.from(valid.toString('utf8'), 'utf16le'),
    ),
  );
};

const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/octet-stream', 'application/x-www-form-urlencoded', undefined);

async function sendRaw(route: RouteDefinition & { id: RouteId }, body: Buffer, options: { type?: string; chunked?: boolean } = {}) {
  // Events are published by the pipeline after the write: count once everything before is out.
  await pipelineDrained(server);
  const published = eventLines(server).length;
  const init: RequestInit & { duplex?: 'half' } = {
    method: route.method,
    headers: { ...headers, ...(options.type ? { 'content-type': options.type } : {}) },
    signal: AbortSignal.timeout(30_000),
  };
  if (route.method !== 'GET' && route.method !== 'DELETE') {
    if (options.chunked) {
      // A stream has no length, so it goes out with Transfer-Encoding: chunked, in small pieces.
      init.body = new ReadableStream({
        start(controller) {
          for (let at = 0; at < body.length; at += 4096) controller.enqueue(body.subarray(at, at + 4096));
          controller.close();
        },
      });
      init.duplex = 'half';
    } else init.body = body;
  }
  const response = await fetch(server.url + pathOf(route), init);
  const text = await response.text();
  const label = `${route.method} ${route.path} answered ${response.status} ${text.slice(0, 300)}`;
  expect(response.status, label).toBeLessThan(500);
  const parsed = JSON.parse(text);
  // The front door (an over-limit upload) answers like API Gateway, before any function runs.
  const frontDoor = response.status === 413 && Object.keys(parsed).join() === 'message';
  if (!frontDoor) assertDocumentedResponse(route.method, pathOf(route), response.status, response.headers.get('content-type'), parsed);
  if (response.status >= 400) {
    if (!frontDoor) expect(errorBodyProblems(ROUTE_FUZZ[route.id].envelope, response.status, parsed), label).toEqual([]);
    await pipelineDrained(server);
    expect(eventLines(server).length, `${label}: a rejected request published an event`).toBe(published);
  }
  return response.status;
}

const route = (id: RouteId) => routeTable.find((candidate) => candidate.id === id)!;

describe('raw bytes through the local server', () => {
  it.each(routeTable.map((entry) => [entry.id, entry] as const))('%s: answers raw and chunked bodies below 500', async (_id, entry) => {
    await fc.assert(
      fc.asyncProperty(rawBody(entry.id), contentType, fc.boolean(), async (body, type, chunked) => {
        await sendRaw(entry, body, { type, chunked });
      }),
      { numRuns: RUNS * 2, seed: SEED, endOnFailure: true },
    );
  });

  it('answers oversized or absurdly nested bodies with 413 or 400', async () => {
    expect(await sendRaw(route('putOrderSettings'), Buffer.alloc(10 * 1024 * 1024 + 1, 0x20))).toBe(413);
    expect(await sendRaw(route('ingestEvents'), Buffer.from(JSON.stringify({ name: 'page_view', data: { note: 'x'.repeat(200_000) } })))).toBe(413);
    const hugeTitle = JSON.stringify({ name: 'n', configuration: { widgets: [{ title: 'x'.repeat(2_000_000) }] } });
    expect(await sendRaw(route('createDashboardView'), Buffer.from(hugeTitle), { chunked: true })).toBe(400);
    const deep = `{"name":"n","configuration":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect(await sendRaw(route('createDashboardView'), Buffer.from(deep))).toBe(400);
  });

  it('still serves a valid request, chunked, after all of it', async () => {
    const body = Buffer.from(JSON.stringify({ countPendingOrders: true, countVoidedOrders: false, refundDateAttribution: 'order_date', exclusionFilters: [] }));
    expect(await sendRaw(route('putOrderSettings'), body, { type: 'application/json', chunked: true })).toBe(200);
  });
});
