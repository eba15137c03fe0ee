import fc from 'fast-check';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { lambdaContext } from '../../lib/local/local-api';
import { routeTable, type RouteDefinition, type RouteId } from '../../lib/routes';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { SCOPES } from '../../shared/auth/scopes';
import { createDashboardView } from '../../shared/dashboards/dashboard-view-service';
import { createDashboardViewSchema } from '../../shared/schemas/dashboard-view';
import { importAds } from '../support/ad-store';
import { hourRow, validAdInput } from '../support/ad-fixtures';
import { validCreateBody } from '../support/dashboard-view-fixtures';
import { tableDataText } from '../support/event-store';
import { recordedEvents, useFreshTable } from '../support/fresh-table';
import {
  buildEvent,
  errorBodyProblems,
  HOSTILE_KEYS,
  hostileValue,
  mutate,
  mutation,
  reportedPaths,
  ROUTE_FUZZ,
  withHostileKey,
  withStorableNumbers,
  type FuzzContext,
  type FuzzRequest,
  type RequestParts,
} from '../support/route-fuzz';

/*
 * Every route of the route table, through its real handler and the whole request pipeline, with
 * real-shaped API Gateway events and a real table. Whatever is sent: an answer below 500, in
 * time; and a 4xx is the documented error body with nothing stored and nothing published.
 * FUZZ_RUNS scales the number of examples per property (default 12); fast-check prints the seed
 * and the shrunk counterexample of a failure, and FUZZ_SEED replays a run.
 */

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const params = (scale = 1): fc.Parameters<unknown> => ({ numRuns: Math.max(1, Math.round(RUNS * scale)), seed: SEED, endOnFailure: true });
const HANG_MS = 20_000;

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

interface Harness {
  route: RouteDefinition & { id: RouteId };
  context: FuzzContext;
  headers: Record<string, string>;
  handler: Handler;
  /** The table as text after the last request: what the next one is compared with. */
  table: string;
}

async function loadHandler(route: RouteDefinition): Promise<Handler> {
  const module = (await import(new URL(`../../${route.handler}`, import.meta.url).href)) as { handler: Handler };
  return module.handler;
}

async function seedView(pixelId: string): Promise<string> {
  const view = await createDashboardView(
    { pixelId, apiKeyPk: 'ak_fuzz_seed', requestTime: new Date() },
    createDashboardViewSchema.parse(validCreateBody()),
  );
  return view.dashboardViewId;
}

async function setUp(route: RouteDefinition & { id: RouteId }): Promise<Harness> {
  await useFreshTable();
  const pixelId = `px_fuzz_${route.id}`;
  // Thousands of requests on one key: a quota (tested in rate-limits.test.ts) must not answer them.
  const { apiKey } = await mintApiKey({ pixelId, scopes: [...SCOPES], rateLimit: '1000000/1s', eventsRateLimit: '1000000/1s', costLimit: '1000000/1s' });
  await importAds(
    pixelId,
    ['a1', 'a2', 'a3'].map((adId, i) => validAdInput({ adId, platform: (['meta', 'google', 'tiktok'] as const)[i], hourly: [hourRow('2025-03-01T10:00:00Z', 2), hourRow('2025-06-01T23:00:00Z', 3)] })),
    [{ date: '2025-01-01', rates: { USD: 1, EUR: 0.9, GBP: 0.8 } }],
  );
  const context = { pixelId, viewId: await seedView(pixelId) };
  return { route, context, headers: { 'x-api-key': apiKey, 'x-pixel-id': pixelId, 'content-type': 'application/json' }, handler: await loadHandler(route), table: await tableDataText() };
}

interface Outcome {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Sends one request and holds the answer to every rule that applies to any request. */
async function send(harness: Harness, request: FuzzRequest): Promise<Outcome> {
  const event = buildEvent(harness.route, request);
  const started = performance.now();
  const emittedBefore = recordedEvents(harness.context.pixelId).length;
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${HANG_MS} ms`)), HANG_MS);
  });
  const result = (await Promise.race([harness.handler(event, lambdaContext(harness.route.id, event.requestContext.requestId)), hang]).finally(() =>
    clearTimeout(timer),
  )) as APIGatewayProxyStructuredResultV2;

  const status = result.statusCode ?? 200;
  const headers = (result.headers ?? {}) as Record<string, string>;
  const text = result.isBase64Encoded ? (await import('node:zlib')).gunzipSync(Buffer.from(result.body ?? '', 'base64')).toString('utf8') : (result.body ?? '');
  const body = text ? JSON.parse(text) : undefined;
  const table = await tableDataText();
  const tableBefore = harness.table;
  // The next request is compared with this one's outcome, whether or not this one passes.
  harness.table = table;
  const label = `${harness.route.id} answered ${status} ${text.slice(0, 500)}`;

  expect(status, label).toBeLessThan(500);
  expect(headers['x-request-id'], label).toBe(event.requestContext.requestId);
  if (status >= 400) {
    expect(errorBodyProblems(ROUTE_FUZZ[harness.route.id].envelope, status, body), label).toEqual([]);
    expect(table, `${label}: a rejected request changed the table`).toBe(tableBefore);
    expect(recordedEvents(harness.context.pixelId).length, `${label}: a rejected request published an event`).toBe(emittedBefore);
  }
  if (process.env.FUZZ_TRACE) console.log(harness.route.id, status, (performance.now() - started).toFixed(0), 'ms', JSON.stringify(request.parts.pathParameters ?? {}).slice(0, 80));
  if (harness.route.id === 'deleteDashboardView' && status < 300) {
    harness.context.viewId = await seedView(harness.context.pixelId);
    harness.table = await tableDataText();
  }
  return { status, headers, body };
}

const validParts = (harness: Harness) => ROUTE_FUZZ[harness.route.id].valid(harness.context).map(withStorableNumbers);
const expectBadRequestAt = (harness: Harness, outcome: Outcome, path: string[]) => {
  expect(outcome.status, JSON.stringify(outcome.body)).toBe(400);
  expect(reportedPaths(ROUTE_FUZZ[harness.route.id].envelope, outcome.body), JSON.stringify(outcome.body)).toContainEqual(path);
};

const unknownParameterName = fc.oneof(
  fc.constantFrom(...HOSTILE_KEYS, 'type[]', 'search[]', '', 'x-api-key', 'pixelId', 'limit'),
  fc.string({ minLength: 1, maxLength: 12 }).map((name) => `zz_${name}`),
);

const oddPathParameter = fc.oneof(
  fc.constantFrom('a/b', '../..', '%2F', '.', '..', 'x'.repeat(10_000), '\u0000', 'ab\u0007cd', '\ud800', ' ', '\ufeff', 'ＡＢ', '00000000-0000-0000-0000-000000000000'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 50 }),
  fc.uuid().map((id) => id.toUpperCase()),
  fc.uuid().map((id) => ` ${id}`),
);

describe.each(routeTable.map((route) => [route.id, route] as const))('%s', (_id, route) => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await setUp(route);
  });

  it('answers a valid request, or a mutation of one, below 500; a rejection is documented and changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constant(null).chain(() => validParts(harness)),
        fc.array(mutation, { minLength: 0, maxLength: 3 }),
        fc.option(fc.tuple(fc.nat(), hostileValue.map((value) => (typeof value === 'string' ? value : JSON.stringify(value) ?? ''))), { freq: 3 }),
        async (parts, mutations, queryChange) => {
          const query = { ...parts.query };
          const keys = Object.keys(query);
          if (queryChange && keys.length > 0) query[keys[queryChange[0] % keys.length]!] = queryChange[1];
          const body = parts.body === undefined ? undefined : mutate(parts.body, mutations);
          await send(harness, { parts: { ...parts, query, body }, headers: harness.headers });
        },
      ),
      params(3),
    );
  });

  it('answers any body at all below 500: JSON of any shape, text, nothing', async () => {
    const rawBody = fc.oneof(
      fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.constantFrom('', ' ', '{', '{"a":', 'null', '[]', '"x"', '{}', '\ufeff{}', '{"a":1}{"b":2}', '[' .repeat(100_000)),
    );
    await fc.assert(
      fc.asyncProperty(fc.constant(null).chain(() => validParts(harness)), rawBody, async (parts, text) => {
        await send(harness, { parts, headers: harness.headers, rawBody: text });
      }),
      params(),
    );
  });

  it('refuses __proto__, constructor and prototype anywhere in a body, naming where', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constant(null).chain(() => validParts(harness)), fc.nat(), fc.constantFrom(...HOSTILE_KEYS), hostileValue, async (parts, at, key, value) => {
        if (parts.body === undefined) {
          const outcome = await send(harness, { parts: { ...parts, query: { ...parts.query, [key]: '1' } }, headers: harness.headers });
          return expectBadRequestAt(harness, outcome, ['query', key]);
        }
        const hostile = withHostileKey(parts.body, at, key, value);
        const outcome = await send(harness, { parts: { ...parts, body: hostile.body }, headers: harness.headers });
        expectBadRequestAt(harness, outcome, hostile.path);
      }),
      params(),
    );
  });

  it('refuses an undeclared or repeated query parameter, naming it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constant(null).chain(() => validParts(harness)), unknownParameterName, fc.boolean(), async (parts, name, repeat) => {
        const declared = Object.entries(parts.query ?? {});
        const [repeatedName, value] = repeat && declared.length > 0 ? declared[0]! : [name, '1'];
        const query = new URLSearchParams(declared);
        query.append(repeatedName, value);
        if (repeatedName === name && !declared.some(([key]) => key === name)) {
          // An undeclared name, possibly one that is declared elsewhere (`limit` is a body member).
          const outcome = await send(harness, { parts, headers: harness.headers, rawQuery: query.toString() });
          return expectBadRequestAt(harness, outcome, ['query', name]);
        }
        const outcome = await send(harness, { parts, headers: harness.headers, rawQuery: query.toString() });
        expectBadRequestAt(harness, outcome, ['query', repeatedName]);
      }),
      params(),
    );
  });

  it('answers missing, garbled or foreign credentials with 401, and any other broken header below 500', async () => {
    const brokenAuth = fc.oneof(
      fc.constant((h: Record<string, string>) => ({ ...h, 'x-api-key': '' })),
      fc.constant(({ 'x-api-key': _key, ...h }: Record<string, string>) => h),
      fc.constant(({ 'x-pixel-id': _pixel, ...h }: Record<string, string>) => h),
      fc.string({ unit: 'binary', maxLength: 80 }).map((garbage) => (h: Record<string, string>) => ({ ...h, 'x-api-key': garbage })),
      fc.string({ unit: 'binary', maxLength: 80 }).map((garbage) => (h: Record<string, string>) => ({ ...h, 'x-api-key': `upstack_${garbage}` })),
      fc.string({ unit: 'binary', maxLength: 200 }).map((garbage) => (h: Record<string, string>) => ({ ...h, 'x-pixel-id': garbage })),
      fc.constant((h: Record<string, string>) => ({ ...h, 'x-pixel-id': 'px_someone_else' })),
      fc.constant((h: Record<string, string>) => ({ ...h, 'x-api-key': `${h['x-api-key']},${h['x-api-key']}` })),
    );
    await fc.assert(
      fc.asyncProperty(fc.constant(null).chain(() => validParts(harness)), brokenAuth, async (parts, breakHeaders) => {
        const outcome = await send(harness, { parts, headers: breakHeaders(harness.headers) });
        expect(outcome.status, JSON.stringify(outcome.body)).toBe(401);
      }),
      params(),
    );

    const otherHeaders = fc.oneof(
      fc.constantFrom('text/plain', 'application/octet-stream', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x', '', '*/*', 'image/png').map(
        (type) => (h: Record<string, string>) => ({ ...h, 'content-type': type }),
      ),
      fc.constantFrom('gzip', 'br', 'identity, gzip;q=0', '*').map((coding) => (h: Record<string, string>) => ({ ...h, 'content-encoding': coding, 'accept-encoding': coding })),
      fc.constant(({ 'content-type': _type, ...h }: Record<string, string>) => h),
      fc.string({ unit: 'binary', maxLength: 80 }).map((garbage) => (h: Record<string, string>) => ({ ...h, 'x-request-id': garbage, 'user-agent': garbage })),
    );
    await fc.assert(
      fc.asyncProperty(fc.constant(null).chain(() => validParts(harness)), otherHeaders, async (parts, changeHeaders) => {
        await send(harness, { parts, headers: changeHeaders(harness.headers) });
      }),
      params(),
    );
  });

  it('answers a body claimed base64 that is not, or that decodes to bytes that are not UTF-8, with a 4xx when it reads a body', async () => {
    const notBase64 = fc.oneof(fc.constantFrom('!!!!', 'e30', '{}', 'e30=garbage', '====', 'ZZ=Z'), fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }));
    const notUtf8 = fc.constantFrom(Buffer.from([0x7b, 0xff, 0x7d]), Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x3a, 0x31, 0x7d]), Buffer.from([0xed, 0xa0, 0x80]));
    await fc.assert(
      fc.asyncProperty(fc.constant(null).chain(() => validParts(harness)), fc.oneof(notBase64, notUtf8.map((bytes) => bytes.toString('base64'))), async (parts, encoded) => {
        const outcome = await send(harness, {
          parts,
          headers: harness.headers,
          tamper: (event) => Object.assign(event, { body: encoded, isBase64Encoded: true }),
        });
        if (parts.body !== undefined) expect(outcome.status, JSON.stringify(outcome.body)).toBeGreaterThanOrEqual(400);
      }),
      params(),
    );
  });

  it.runIf(route.path.includes('{'))('answers odd path parameters (long, control characters, encoded slashes) with a 4xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constant(null).chain(() => validParts(harness)), oddPathParameter, async (parts, value) => {
        const pathParameters = Object.fromEntries(Object.keys(parts.pathParameters ?? {}).map((name) => [name, value]));
        const outcome = await send(harness, { parts: { ...parts, pathParameters }, headers: harness.headers });
        expect(outcome.status, JSON.stringify(outcome.body)).toBeGreaterThanOrEqual(400);
      }),
      params(),
    );
  });
});

describe('the fuzz map', () => {
  it('has an entry for exactly the routes of the route table', () => {
    expect(Object.keys(ROUTE_FUZZ).sort()).toEqual(routeTable.map((route) => route.id).sort());
  });

  it('builds valid requests that the routes accept', async () => {
    // A fuzz that starts from requests the route refuses tests only the refusal; the starting
    // points must be accepted, or the mutations prove nothing.
    for (const route of routeTable) {
      const harness = await setUp(route);
      for (let i = 0; i < 3; i++) {
        const [parts] = fc.sample(validParts(harness), { numRuns: 1, seed: 42 + i }) as RequestParts[];
        const outcome = await send(harness, { parts: parts!, headers: harness.headers });
        expect(outcome.status, `${route.id}: ${JSON.stringify(outcome.body)}`).toBeLessThan(300);
      }
    }
  });
});
