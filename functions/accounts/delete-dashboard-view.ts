import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadIdempotency } from '../../shared/http/idempotency-loader';
import { loadOnce } from '../../shared/config/lazy';

const dashboardViewService = loadOnce(() => import('../../shared/dashboards/dashboard-view-service'));

/** DELETE a view (spec 4.5); deleting it again is a 404. */
export const handler = apiHandler(
  { route: routes.deleteDashboardView, idempotency: loadIdempotency, schemas: { path: async () => (await import('../../shared/schemas/dashboard-view')).dashboardViewPathSchema } },
  async ({ path, principal }) => {
    const { deleteDashboardView } = await dashboardViewService();
    return { body: await deleteDashboardView(principal.pixelId, path.dashboardViewId) };
  },
);
