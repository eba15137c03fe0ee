import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadIdempotency } from '../../shared/http/idempotency-loader';

/** DELETE a view (spec 4.5); deleting it again is a 404. */
export const handler = apiHandler(
  { route: routes.deleteDashboardView, idempotency: loadIdempotency, schemas: { path: async () => (await import('../../shared/schemas/dashboard-view')).dashboardViewPathSchema } },
  async ({ path, principal }) => {
    const { deleteDashboardView } = await import('../../shared/dashboards/dashboard-view-service');
    return { body: await deleteDashboardView(principal.pixelId, path.dashboardViewId) };
  },
);
