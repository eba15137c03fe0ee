import fc from 'fast-check';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../lib/local/local-api';
import { routeTable, type RouteDefinition, type RouteId } from '../../lib/routes';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { SCOPES } from '../../shared/auth/scopes';
import { replaceCostSettings } from '../../shared/costs/cost-settings-service';
import { createDashboardView } from '../../shared/dashboards/dashboard-view-service';
import { costSettingsInputSchema, skuCostSchema } from '../../shared/schemas/cost-settings';
import { createDashboardViewSchema } from '../../shared/schemas/dashboard-view';
import { writeSkuCosts } from '../../shared/analytics/store/sku-costs';
import { importAds } from '../support/ad-store';
import { isOfKind, ITEM_KINDS, type ItemKind } from '../../shared/store/table-design';
import { ingestEvents } from '../../shared/tracking/ingest-service';
import { parseIngestBody } from '../../shared/tracking/parse-ingest-body';
import { hourRow, validAdInput } from '../support/ad-fixtures';
import { validCreateBody } from '../support/dashboard-view-fixtures';
import { pageView, purchaseEvent } from '../support/event-fixtures';
import { recordedEvents, useFreshTable } from '../support/fresh-table';
import { drainPipeline } from '../support/pipeline';
import { buildEvent, ROUTE_FUZZ, withStorableNumbers, type RequestParts } from '../support/route-fuzz';

/*
 * The proof behind the stack's least-privilege grants (lib/constructs/api-function.ts
 * bindTableItems): every route's real handler answers valid requests from the fuzz map while every
 * DynamoDB command it sends is recorded, and each partition key it reads or writes must belong to
 * an item family its route table row declares (ITEM_KINDS patterns, judged as IAM's StringLike
 * would). A key outside them is a request the deployed function would be denied.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;
interface Touch {
  access: 'read' | 'write';
  command: string;
  pk: string;
  index?: string;
}

let recording: Touch[] | undefined;
const original = DynamoDBDocumentClient.prototype.send;

function partitionValueOf(input: any): string | undefined {
  const names: Record<string, string> = input.ExpressionAttributeNames ?? {};
  for (const clause of String(input.KeyConditionExpression).split(/\s+AND\s+/i)) {
    const match = /^\s*\(?\s*([#\w]+)\s*=\s*(:\w+)\s*\)?\s*$/.exec(clause);
    if (!match) continue;
    const attribute = names[match[1]!] ?? match[1]!;
    if (/PK$/.test(attribute)) return input.ExpressionAttributeValues?.[match[2]!];
  }
  return undefined;
}

function touchesOf(command: any): Touch[] {
  const name: string = command.constructor.name;
  const touches = accessesOf(name, command.input).map((touch) => ({ ...touch, command: name }));
  // IAM holds a whole request's leading keys to one statement's condition (ForAllValues): a batch
  // mixing families would be denied even with both granted, so the recording keeps each batch as one.
  if (touches.length > 1) return [{ ...touches[0]!, pk: touches.map((touch) => touch.pk).join('\n') }];
  return touches;
}

function accessesOf(name: string, input: any): Array<Omit<Touch, 'command'>> {
  switch (name) {
    case 'GetCommand':
      return [{ access: 'read', pk: input.Key.PK }];
    case 'QueryCommand':
      return [{ access: 'read', pk: partitionValueOf(input) ?? '?', ...(input.IndexName ? { index: input.IndexName } : {}) }];
    case 'BatchGetCommand':
      return Object.values(input.RequestItems as Record<string, { Keys: any[] }>).flatMap((r) => r.Keys.map((key) => ({ access: 'read' as const, pk: key.PK })));
    case 'PutCommand':
      return [{ access: 'write', pk: input.Item.PK }];
    case 'UpdateCommand':
    case 'DeleteCommand':
      return [{ access: 'write', pk: input.Key.PK }];
    case 'BatchWriteCommand':
      return Object.values(input.RequestItems as Record<string, any[]>).flatMap((requests) =>
        requests.map((request) => ({ access: 'write' as const, pk: (request.PutRequest?.Item ?? request.DeleteRequest?.Key).PK })),
      );
    default:
      return [{ access: 'write', pk: `unknown command ${name}` }];
  }
}

beforeAll(() => {
  vi.spyOn(DynamoDBDocumentClient.prototype, 'send').mockImplementation(function (this: DynamoDBDocumentClient, command: any, ...rest: any[]) {
    if (recording) recording.push(...touchesOf(command));
    return (original as any).call(this, command, ...rest);
  } as any);
});
afterAll(() => vi.restoreAllMocks());

/** The date ranges the route's requests will ask for (the fuzz map's draws depend on the seed only). */
function requestedDays(route: RouteDefinition & { id: RouteId }, pixelId: string): string[] {
  return REQUEST_SEEDS.flatMap((seed) => {
    const [parts] = fc.sample(ROUTE_FUZZ[route.id].valid({ pixelId, viewId: 'unknown' }), { numRuns: 1, seed }) as RequestParts[];
    const start = (parts?.body as { dateRange?: { start?: string } } | undefined)?.dateRange?.start;
    return start ? [start.slice(0, 10)] : [];
  });
}

/**
 * A pixel with data where the requests look: on each requested range's first day (noon UTC lies
 * inside that day in every zone the fuzz map draws), a visit from a Meta ad, a sign-up and a
 * purchase of a returning customer with items and a refund, projected by the pipeline into the
 * query, cohort and journey read models; ad hours on that day; cost settings and
 * SKU costs. The analytics handlers then read real items, and the recording judges those reads.
 */
async function seedAnalytics(pixelId: string, days: readonly string[]) {
  await replaceCostSettings({
    pixelId,
    apiKeyPk: 'ak_access_seed',
    requestTime: new Date(),
    input: costSettingsInputSchema.parse({ defaultCogsPercent: 40, handlingFeePerItem: 0.5, defaultShippingCostPerOrder: 4, gatewayFees: [{ gateway: 'stripe', percent: 2.9, fixed: 0.3 }], currency: 'USD' }),
  });
  await writeSkuCosts(pixelId, [skuCostSchema.parse({ sku: 'SKU1', cost: 12, currency: 'EUR', effectiveFrom: '2024-01-01' })]);
  for (const [i, day] of [...new Set(days)].entries()) {
    const at = (time: string) => `${day}T${time}Z`;
    const ad = `https://shop.example/?utm_source=facebook&utm_medium=paid&campaign_id=c1&adset_id=s1&ad_id=a1`;
    const purchase = (n: number, time: string) =>
      purchaseEvent({
        eventId: `seed-${i}-purchase-${n}`,
        timestamp: at(time),
        user: { anonymousId: `anon-${i}`, emails: [`buyer${i}@example.com`], userIds: [`customer-${i}`] },
        data: {
          orderId: `order-${i}-${n}`, value: 80, currency: 'EUR', sourceName: 'web', paymentGateway: 'stripe', financialStatus: 'partially_refunded',
          items: [{ id: 'SKU1', sku: 'SKU1', price: 40, quantity: 2 }], refunds: [{ amount: 10, processedAt: at('12:30:00') }],
        },
      });
    const request = parseIngestBody(
      {
        events: [
          pageView({ eventId: `seed-${i}-ad`, timestamp: at('09:00:00'), user: { anonymousId: `anon-${i}` }, page: { url: ad }, click: { fbp: `fb.1.${i}` } }),
          pageView({ name: 'sign_up', eventId: `seed-${i}-signup`, timestamp: at('10:00:00'), user: { anonymousId: `anon-${i}`, emails: [`buyer${i}@example.com`] } }),
          purchase(1, '11:00:00'),
          purchase(2, '12:00:00'),
        ],
      },
      new Date(at('13:00:00')),
    );
    await ingestEvents(pixelId, request, new Date(at('13:00:00')));
  }
  await drainPipeline();
  await importAds(
    pixelId,
    ['a1', 'a2', 'a3'].map((adId, i) =>
      validAdInput({
        adId,
        platform: (['meta', 'google', 'tiktok'] as const)[i],
        hourly: [hourRow('2025-03-01T10:00:00Z', 2), hourRow('2025-06-01T23:00:00Z', 3), ...days.map((day) => hourRow(`${day}T12:00:00Z`, 5))],
      }),
    ),
  );
}

const REQUEST_SEEDS = [7, 8, 9, 10, 11, 12];
/** Families a route may read that the seed does not make it read. */
const RARELY_READ: ItemKind[] = [];

async function setUp(route: RouteDefinition & { id: RouteId }) {
  await useFreshTable();
  const pixelId = `px_access_${route.id}`;
  const { apiKey } = await mintApiKey({ pixelId, scopes: [...SCOPES], rateLimit: '1000000/1s', eventsRateLimit: '1000000/1s', costLimit: '1000000/1s' });
  await importAds(pixelId, [], [{ date: '2024-01-01', rates: { USD: 1, EUR: 0.9, GBP: 0.8 } }]);
  await seedAnalytics(pixelId, requestedDays(route, pixelId));
  const view = await createDashboardView({ pixelId, apiKeyPk: 'ak_access_seed', requestTime: new Date() }, createDashboardViewSchema.parse(validCreateBody()));
  const module = (await import(new URL(`../../${route.handler}`, import.meta.url).href)) as { handler: Handler };
  return { pixelId, context: { pixelId, viewId: view.dashboardViewId }, headers: { 'x-api-key': apiKey, 'x-pixel-id': pixelId, 'content-type': 'application/json' }, handler: module.handler };
}

describe.each(routeTable.map((route) => [route.id, route] as const))('%s', (_id, route) => {
  it('touches only partition keys it declares', async () => {
    const harness = await setUp(route);
    // The seeding's own changes (cost settings) publish; only what the route's requests publish counts.
    const publishedBySeeding = recordedEvents(harness.pixelId).length;
    const touches: Touch[] = [];
    for (const [i, seed] of REQUEST_SEEDS.entries()) {
      // A deleted view is gone: each delete gets a fresh one to delete.
      if (route.id === 'deleteDashboardView' && i > 0) harness.context.viewId = (await createDashboardView({ pixelId: harness.pixelId, apiKeyPk: 'ak_access_seed', requestTime: new Date() }, createDashboardViewSchema.parse(validCreateBody()))).dashboardViewId;
      const [parts] = fc.sample(ROUTE_FUZZ[route.id].valid(harness.context).map(withStorableNumbers), { numRuns: 1, seed }) as RequestParts[];
      const event = buildEvent(route, { parts: parts!, headers: { ...harness.headers, 'idempotency-key': `k-${i}` } });
      recording = touches;
      const result = (await harness.handler(event, lambdaContext(route.id, event.requestContext.requestId)).finally(() => (recording = undefined))) as APIGatewayProxyStructuredResultV2;
      expect(result.statusCode, `${route.id}: ${result.body}`).toBeLessThan(300);
    }
    const { reads, writes, publishes } = route.capabilities;
    const writable: ItemKind[] = route.writes ? [...writes, 'idempotency'] : [...writes];
    const readable: ItemKind[] = [...reads, ...writable];
    const undeclared = touches.filter((touch) => {
      // Authentication: the one UpdateItem on the caller's key item that counts its requests.
      if (touch.command === 'UpdateCommand' && isOfKind('apiKey', touch.pk)) return false;
      const allowed = touch.access === 'read' ? readable : writable;
      return !allowed.some((kind) => touch.pk.split('\n').every((pk) => isOfKind(kind, pk)) && (ITEM_KINDS[kind] as { index?: string }).index === touch.index);
    });
    expect(touches.length, `${route.id} touched no item at all: was the recording wired?`).toBeGreaterThan(0);
    // The seeded pixel makes every declared read happen, so a declaration the code no longer needs shows.
    const touched = (kind: ItemKind) => touches.some((touch) => touch.pk.split('\n').every((pk) => isOfKind(kind, pk)));
    expect(reads.filter((kind) => !RARELY_READ.includes(kind) && !touched(kind)), `${route.id} declares reads it never made`).toEqual([]);
    expect(undeclared.map((touch) => `${touch.command} ${touch.index ?? ''} ${touch.pk}`), `${route.id} reaches items lib/routes.ts does not declare`).toEqual([]);
    if (!publishes) expect(recordedEvents(harness.pixelId).slice(publishedBySeeding), `${route.id} published without declaring it`).toEqual([]);
  });
});

describe('the item family patterns', () => {
  it.each([
    ['pixelHead', 'PIXEL#px_1', true],
    ['pixelHead', 'PIXEL#px_1#VIEWS', false],
    ['dashboardViews', 'PIXEL#px_1#VIEWS', true],
    ['analyticsPartitions', 'PIXEL#px_1#PARQUET#ad_hours', true],
    ['analyticsPartitions', 'PIXEL#px_1#ADS', false],
    ['journeys', 'PIXEL#px_1#AJ#e:abc', true],
    ['journeys', 'PIXEL#px_1#PARQUET#orders', false],
    ['apiKey', 'PIXEL#px_1', false],
  ] as const)('%s matches %s: %s', (kind, key, expected) => {
    expect(isOfKind(kind, key)).toBe(expected);
  });
});
