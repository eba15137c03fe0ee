import { routes } from '../../lib/routes';
import { deleteDashboardView } from '../../shared/dashboards/dashboard-view-service';
import { apiHandler } from '../../shared/http/api-handler';
import { dashboardViewPathSchema } from '../../shared/schemas/dashboard-view';

/** DELETE a view (spec 4.5); deleting it again is a 404. */
export const handler = apiHandler(
  { route: routes.deleteDashboardView, schemas: { path: dashboardViewPathSchema } },
  async ({ path, principal }) => ({ body: await deleteDashboardView(principal.pixelId, path.dashboardViewId) }),
);
