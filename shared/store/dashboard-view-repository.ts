import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { RetryableFault } from '../faults';
import {
  dashboardViewMembersSchema,
  type DashboardView,
  type DashboardViewConfiguration,
  type DashboardViewSummary,
} from '../schemas/dashboard-view';
import { documentClient, tableName } from './dynamo-client';
import { queryAll } from './query-all';

/**
 * Dashboard views, one item per view (see table-design.ts):
 *
 *   `PK=PIXEL#<pixelId>#VIEWS`  `SK=VIEW#<dashboardViewId>`
 *
 * The pixel is in the partition key, so a view of another pixel is simply not found, and a
 * pixel's views are one Query while a view is one GetItem. The configuration is JSON text: it is
 * only ever read whole, text keeps it exactly as validated (DynamoDB maps cap nesting at 32
 * levels and reject some numbers), and its size is what the 256 KiB limit measures. The summary
 * members are top-level attributes so that the list projects them without the configuration.
 *
 * `version` guards read-modify-write updates; `createdByApiKeyPk` / `updatedByApiKeyPk` record
 * which key wrote, for audit, and are never returned.
 */
export interface StoredDashboardView {
  view: DashboardView;
  version: number;
  /** The `changeId` of the write that stored this version. */
  changeId: string | undefined;
}

export class ConcurrentDashboardViewUpdateError extends RetryableFault {
  constructor(dashboardViewId: string) {
    super(`Dashboard view ${dashboardViewId} changed while it was being updated`);
  }
}

const viewsPk = (pixelId: string) => `PIXEL#${pixelId}#VIEWS`;
const SK_PREFIX = 'VIEW#';
const viewSk = (dashboardViewId: string) => `${SK_PREFIX}${dashboardViewId}`;

const summaryAttributes = z.pick(dashboardViewMembersSchema, {
  dashboardViewId: true,
  type: true,
  name: true,
  order: true,
  createdAt: true,
  updatedAt: true,
});

/*
 * The configuration is not re-validated on read: it was on the way in, and checking it against
 * today's measures catalog would make a view unreadable the day a measure it uses is retired.
 */
const storedItem = z.extend(dashboardViewMembersSchema, {
  configuration: z.string(),
  version: z.int().check(z.positive()),
  changeId: z.optional(z.string()),
});

export async function getDashboardViewItem(pixelId: string, dashboardViewId: string): Promise<StoredDashboardView | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName(), Key: { PK: viewsPk(pixelId), SK: viewSk(dashboardViewId) }, ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const item = storedItem.parse(Item);
  return {
    version: item.version,
    changeId: item.changeId,
    view: {
      dashboardViewId: item.dashboardViewId,
      pixelId: item.pixelId,
      type: item.type,
      name: item.name,
      configuration: JSON.parse(item.configuration) as DashboardViewConfiguration,
      order: item.order,
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
      createdBy: item.createdBy,
      updatedBy: item.updatedBy,
    },
  };
}

/** Every view of the pixel, summary members only, in no particular order. */
export async function listDashboardViewSummaries(pixelId: string): Promise<DashboardViewSummary[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND begins_with(SK, :prefix)',
    ExpressionAttributeValues: { ':pk': viewsPk(pixelId), ':prefix': SK_PREFIX },
    ProjectionExpression: 'dashboardViewId, #type, #name, #order, createdAt, updatedAt',
    ExpressionAttributeNames: { '#type': 'type', '#name': 'name', '#order': 'order' },
    ConsistentRead: true,
  });
  return items.map((item): DashboardViewSummary => summaryAttributes.parse(item));
}

export class DashboardViewExistsError extends Error {
  constructor(dashboardViewId: string) {
    super(`Dashboard view ${dashboardViewId} is already stored`);
  }
}

/**
 * Stores a new view; DashboardViewExistsError when a view with its id is already stored. The id
 * is fresh, so that means an earlier attempt of the same insert committed.
 */
export async function insertDashboardView(view: DashboardView, apiKeyPk: string): Promise<void> {
  const { configuration, ...members } = view;
  try {
    await documentClient.send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          PK: viewsPk(view.pixelId),
          SK: viewSk(view.dashboardViewId),
          ...members,
          configuration: JSON.stringify(configuration),
          version: 1,
          createdByApiKeyPk: apiKeyPk,
          updatedByApiKeyPk: apiKeyPk,
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new DashboardViewExistsError(view.dashboardViewId);
    throw error;
  }
}

/**
 * Writes the mutable members of a view read at `expectedVersion`: name, configuration, order and
 * the update stamps; who created it stays. Throws ConcurrentDashboardViewUpdateError when the view
 * changed or was deleted since; the caller re-reads and applies its change again. `changeId` is
 * stored with the new version, so a caller whose write got no answer can read whether it landed.
 */
export async function updateDashboardViewItem(
  view: DashboardView,
  expectedVersion: number,
  apiKeyPk: string,
  changeId: string,
): Promise<void> {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: viewsPk(view.pixelId), SK: viewSk(view.dashboardViewId) },
        UpdateExpression:
          'SET #name = :name, configuration = :configuration, #order = :order, updatedAt = :updatedAt, ' +
          'updatedBy = :updatedBy, updatedByApiKeyPk = :apiKeyPk, version = :next, changeId = :changeId',
        ConditionExpression: 'version = :expected',
        ExpressionAttributeNames: { '#name': 'name', '#order': 'order' },
        ExpressionAttributeValues: {
          ':name': view.name,
          ':configuration': JSON.stringify(view.configuration),
          ':order': view.order,
          ':updatedAt': view.updatedAt,
          ':updatedBy': view.updatedBy,
          ':apiKeyPk': apiKeyPk,
          ':next': expectedVersion + 1,
          ':changeId': changeId,
          ':expected': expectedVersion,
        },
      }),
    );
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new ConcurrentDashboardViewUpdateError(view.dashboardViewId);
    throw error;
  }
}

/** Deletes a view; false when there was none to delete. */
export async function deleteDashboardViewItem(pixelId: string, dashboardViewId: string): Promise<boolean> {
  try {
    await documentClient.send(
      new DeleteCommand({
        TableName: tableName(),
        Key: { PK: viewsPk(pixelId), SK: viewSk(dashboardViewId) },
        ConditionExpression: 'attribute_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
