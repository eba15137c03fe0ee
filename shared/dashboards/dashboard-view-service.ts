import { randomUUID } from 'node:crypto';
import { findMeasure } from '../catalog/measures';
import { isWriteOutcomeUnknown } from '../faults';
import { NotFoundError } from '../http/errors';
import { oneAtATime } from '../one-at-a-time';
import { retryUntilCommitted } from '../retry-until-committed';
import {
  CONFIGURATION_DEFAULTS,
  DASHBOARD_VIEW_LIMITS,
  type CreateDashboardViewInput,
  type DashboardView,
  type DashboardViewConfiguration,
  type DashboardViewFromPresetInput,
  type DashboardViewPatch,
  type DashboardViewSummary,
  type DashboardViewType,
} from '../schemas/dashboard-view';
import {
  ConcurrentDashboardViewUpdateError,
  DashboardViewExistsError,
  deleteDashboardViewItem,
  getDashboardViewItem,
  insertDashboardView,
  listDashboardViewSummaries,
  updateDashboardViewItem,
  type StoredDashboardView,
} from '../store/dashboard-view-repository';
import { completeConfiguration, defaultDateRange } from './complete-configuration';
import { copyName } from './copy-name';
import { presetLayout } from './preset-layout';

/** Who writes, and when: the key is recorded with the view for audit, never returned. */
export interface Actor {
  pixelId: string;
  apiKeyPk: string;
  requestTime: Date;
}

/** Upstream documents `createdBy` / `updatedBy` as `""` for writes made with an API key. */
const API_KEY_AUTHOR = '';
const DASHBOARD_VIEW_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The same answer for a missing view, another pixel's view and a malformed id: nothing is disclosed. */
const notFound = () => new NotFoundError('Dashboard view not found');

export async function listDashboardViews(pixelId: string, type?: DashboardViewType): Promise<DashboardViewSummary[]> {
  const summaries = await listDashboardViewSummaries(pixelId);
  return summaries.filter((view) => type === undefined || view.type === type).sort(byPosition);
}

/** The list order: `order`, then `createdAt`, then the id, so that ties never reorder between reads. */
function byPosition(a: DashboardViewSummary, b: DashboardViewSummary): number {
  return a.order - b.order || compareText(a.createdAt, b.createdAt) || compareText(a.dashboardViewId, b.dashboardViewId);
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export async function getDashboardView(pixelId: string, dashboardViewId: string): Promise<DashboardView> {
  return (await load(pixelId, dashboardViewId)).view;
}

async function load(pixelId: string, dashboardViewId: string): Promise<StoredDashboardView> {
  // A malformed id is never looked up: it cannot name a view, and DynamoDB rejects oversized keys.
  const stored = DASHBOARD_VIEW_ID.test(dashboardViewId) ? await getDashboardViewItem(pixelId, dashboardViewId) : undefined;
  if (!stored) throw notFound();
  return stored;
}

/**
 * After every existing view. Two creates racing may pick the same number; the list then orders
 * them by creation time, which is what a user would expect anyway.
 */
async function nextOrder(pixelId: string): Promise<number> {
  const orders = (await listDashboardViewSummaries(pixelId)).map((view) => view.order);
  if (orders.length === 0) return 0;
  return Math.min(Math.max(...orders) + 1, DASHBOARD_VIEW_LIMITS.order.max);
}

async function insert(
  actor: Actor,
  members: { type: DashboardViewType; name: string; configuration: DashboardViewConfiguration; order?: number | undefined },
): Promise<DashboardView> {
  const now = actor.requestTime.toISOString();
  const view: DashboardView = {
    dashboardViewId: randomUUID(),
    pixelId: actor.pixelId,
    type: members.type,
    name: members.name,
    configuration: members.configuration,
    order: members.order ?? (await nextOrder(actor.pixelId)),
    createdAt: now,
    updatedAt: now,
    createdBy: API_KEY_AUTHOR,
    updatedBy: API_KEY_AUTHOR,
  };
  // Retried only when a write got no answer: the id is this request's own, so finding it stored
  // means that earlier attempt committed.
  await retryUntilCommitted(
    async () => {
      try {
        await insertDashboardView(view, actor.apiKeyPk);
      } catch (error) {
        if (!(error instanceof DashboardViewExistsError)) throw error;
      }
    },
    { isConflict: () => false },
  );
  return view;
}

export async function createDashboardView(actor: Actor, input: CreateDashboardViewInput): Promise<DashboardView> {
  return insert(actor, { ...input, configuration: completeConfiguration(input.configuration, actor.requestTime) });
}

/**
 * Applies a partial update to the latest version of the view. The write is conditional on the
 * version read, and a PATCH that loses a race re-reads and applies its own members again, so two
 * concurrent PATCHes of different members both land. `updatedAt` never moves backwards. An
 * attempt that finds this request's `changeId` stored knows an earlier attempt committed.
 */
export async function updateDashboardView(actor: Actor, dashboardViewId: string, patch: DashboardViewPatch): Promise<DashboardView> {
  const configuration = patch.configuration && completeConfiguration(patch.configuration, actor.requestTime);
  const changeId = randomUUID();
  return oneAtATime(`dashboard-view\n${actor.pixelId}\n${dashboardViewId}`, () =>
    retryUntilCommitted(
      async () => {
        const { view, version, changeId: storedChangeId } = await load(actor.pixelId, dashboardViewId);
        if (storedChangeId === changeId) return view;
        const requestTime = actor.requestTime.toISOString();
        const next: DashboardView = {
          ...view,
          name: patch.name ?? view.name,
          configuration: configuration ?? view.configuration,
          order: patch.order ?? view.order,
          updatedAt: requestTime > view.updatedAt ? requestTime : view.updatedAt,
          updatedBy: API_KEY_AUTHOR,
        };
        await updateDashboardViewItem(next, version, actor.apiKeyPk, changeId);
        return next;
      },
      { isConflict: (error) => error instanceof ConcurrentDashboardViewUpdateError },
    ),
  );
}

/**
 * A new view with the source's type and configuration. Widget and section ids are kept: they are
 * unique within a view, and keeping them keeps the copy's `sourceWidgetId` links pointing at its
 * own widgets.
 */
export async function copyDashboardView(actor: Actor, dashboardViewId: string, name?: string): Promise<DashboardView> {
  const { view } = await load(actor.pixelId, dashboardViewId);
  return insert(actor, { type: view.type, name: name ?? copyName(view.name), configuration: view.configuration });
}

/** One sparkline tile per requested measure, laid out in reading order (spec 4.4). */
export async function createDashboardViewFromPreset(actor: Actor, input: DashboardViewFromPresetInput): Promise<DashboardView> {
  const layouts = presetLayout(input.widgets.length);
  const configuration: DashboardViewConfiguration = {
    dateRange: input.dateRange ?? defaultDateRange(actor.requestTime),
    granularity: input.granularity,
    attributionModel: input.attributionModel,
    attributionWindow: input.attributionWindow,
    grid: { ...CONFIGURATION_DEFAULTS.grid },
    widgets: input.widgets.map(({ measure, title }, i) => ({
      id: randomUUID(),
      // The schema admitted only catalog measures.
      title: title ?? findMeasure(measure)!.shortTitle,
      chartType: 'sparkline',
      layout: layouts[i]!,
      dataConfig: { measures: [measure], dimensions: [], filters: [] },
    })),
    sections: [],
  };
  return insert(actor, { type: input.type, name: input.name, configuration });
}

/**
 * A delete whose first attempt got no answer is sent again; if the view is gone by then, that
 * first attempt (or a concurrent delete) removed it, and the answer is that it is deleted.
 */
export async function deleteDashboardView(pixelId: string, dashboardViewId: string): Promise<{ deleted: true; dashboardViewId: string }> {
  if (!DASHBOARD_VIEW_ID.test(dashboardViewId)) throw notFound();
  let sentWithoutAnswer = false;
  const deleted = await retryUntilCommitted(
    async () => {
      try {
        return (await deleteDashboardViewItem(pixelId, dashboardViewId)) || sentWithoutAnswer;
      } catch (error) {
        if (isWriteOutcomeUnknown(error)) sentWithoutAnswer = true;
        throw error;
      }
    },
    { isConflict: () => false },
  );
  if (!deleted) throw notFound();
  return { deleted: true, dashboardViewId };
}
