import fc from 'fast-check';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { lambdaContext } from '../../lib/local/local-api';
import { routeTable, type RouteDefinition, type RouteId } from '../../lib/routes';
import { mintApiKey } from '../../shared/auth/api-key-service';
import { SCOPES } from '../../shared/auth/scopes';
import { createDashboardView } from '../../shared/dashboards/dashboard-view-service';
import { adImportSchema } from '../../shared/schemas/ad-import';
import { createDashboardViewSchema } from '../../shared/schemas/dashboard-view';
import { upsertAds } from '../../shared/store/ad-repository';
import { upsertFxRates } from '../../shared/store/fx-repository';
import { isOfKind, ITEM_KINDS, type ItemKind } from '../../shared/store/table-design';
import { hourRow, validAdInput } from '../support/ad-fixtures';
import { validCreateBody } from '../support/dashboard-view-fixtures';
import { recordedEvents, useFreshTable } from '../support/fresh-table';
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

async function setUp(route: RouteDefinition & { id: RouteId }) {
  await useFreshTable();
  const pixelId = `px_access_${route.id}`;
  const { apiKey } = await mintApiKey({ pixelId, scopes: [...SCOPES], rateLimit: '1000000/1s', eventsRateLimit: '1000000/1s' });
  await upsertFxRates(pixelId, [{ date: '2025-01-01', rates: { USD: 1, EUR: 0.9, GBP: 0.8 } }]);
  await upsertAds(
    pixelId,
    ['a1', 'a2', 'a3'].map((adId, i) =>
      adImportSchema.parse(validAdInput({ adId, platform: (['meta', 'google', 'tiktok'] as const)[i], hourly: [hourRow('2025-03-01T10:00:00Z', 2), hourRow('2025-06-01T23:00:00Z', 3)] })),
    ),
  );
  const view = await createDashboardView({ pixelId, apiKeyPk: 'ak_access_seed', requestTime: new Date() }, createDashboardViewSchema.parse(validCreateBody()));
  const module = (await import(new URL(`../../${route.handler}`, import.meta.url).href)) as { handler: Handler };
  return { pixelId, context: { pixelId, viewId: view.dashboardViewId }, headers: { 'x-api-key': apiKey, 'x-pixel-id': pixelId, 'content-type': 'application/json' }, handler: module.handler };
}

describe.each(routeTable.map((route) => [route.id, route] as const))('%s', (_id, route) => {
  it('touches only partition keys it declares', async () => {
    const harness = await setUp(route);
    const touches: Touch[] = [];
    for (let i = 0; i < 6; i++) {
      // A deleted view is gone: each delete gets a fresh one to delete.
      if (route.id === 'deleteDashboardView' && i > 0) harness.context.viewId = (await createDashboardView({ pixelId: harness.pixelId, apiKeyPk: 'ak_access_seed', requestTime: new Date() }, createDashboardViewSchema.parse(validCreateBody()))).dashboardViewId;
      const [parts] = fc.sample(ROUTE_FUZZ[route.id].valid(harness.context).map(withStorableNumbers), { numRuns: 1, seed: 7 + i }) as RequestParts[];
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
    expect(undeclared.map((touch) => `${touch.command} ${touch.index ?? ''} ${touch.pk}`), `${route.id} reaches items lib/routes.ts does not declare`).toEqual([]);
    if (!publishes) expect(recordedEvents(harness.pixelId), `${route.id} published without declaring it`).toEqual([]);
  });
});

describe('the item family patterns', () => {
  it.each([
    ['pixelHead', 'PIXEL#px_1', true],
    ['pixelHead', 'PIXEL#px_1#VIEWS', false],
    ['dashboardViews', 'PIXEL#px_1#VIEWS', true],
    ['adMetrics', 'PIXEL#px_1#AD#meta#a1', true],
    ['adMetrics', 'PIXEL#px_1#ADS', false],
    ['adDirectory', 'PIXEL#px_1#AD#meta#a1', false],
    ['queryOrdersByDay', 'PIXEL#px_1#QO#2025-01-01#3', true],
    ['apiKey', 'PIXEL#px_1', false],
  ] as const)('%s matches %s: %s', (kind, key, expected) => {
    expect(isOfKind(kind, key)).toBe(expected);
  });
});
