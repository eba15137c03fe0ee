import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';

/** GET one dashboard view, configuration included; 404 when this pixel has no such view. */
export const handler = apiHandler(
  { route: routes.getDashboardView, schemas: { path: async () => (await import('../../shared/schemas/dashboard-view')).dashboardViewPathSchema } },
  async ({ path, principal }) => {
    const { getDashboardView } = await import('../../shared/dashboards/dashboard-view-service');
    return { body: { dashboardView: await getDashboardView(principal.pixelId, path.dashboardViewId) } };
  },
);
