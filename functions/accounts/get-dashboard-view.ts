import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadOnce } from '../../shared/config/lazy';

const dashboardViewService = loadOnce(() => import('../../shared/dashboards/dashboard-view-service'));

/** GET one dashboard view, configuration included; 404 when this pixel has no such view. */
export const handler = apiHandler(
  { route: routes.getDashboardView, schemas: { path: async () => (await import('../../shared/schemas/dashboard-view')).dashboardViewPathSchema } },
  async ({ path, principal }) => {
    const { getDashboardView } = await dashboardViewService();
    return { body: { dashboardView: await getDashboardView(principal.pixelId, path.dashboardViewId) } };
  },
);
