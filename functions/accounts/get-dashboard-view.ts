import { routes } from '../../lib/routes';
import { getDashboardView } from '../../shared/dashboards/dashboard-view-service';
import { apiHandler } from '../../shared/http/api-handler';
import { dashboardViewPathSchema } from '../../shared/schemas/dashboard-view';

/** GET one dashboard view, configuration included; 404 when this pixel has no such view. */
export const handler = apiHandler(
  { route: routes.getDashboardView, schemas: { path: dashboardViewPathSchema } },
  async ({ path, principal }) => ({ body: { dashboardView: await getDashboardView(principal.pixelId, path.dashboardViewId) } }),
);
