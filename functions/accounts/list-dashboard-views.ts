import { routes } from '../../lib/routes';
import { listDashboardViews } from '../../shared/dashboards/dashboard-view-service';
import { apiHandler } from '../../shared/http/api-handler';
import { listDashboardViewsQuerySchema } from '../../shared/schemas/dashboard-view';

/** GET the pixel's dashboard views as summaries, in list order, optionally of one `type`. */
export const handler = apiHandler(
  { route: routes.listDashboardViews, schemas: { query: listDashboardViewsQuerySchema } },
  async ({ query, principal }) => ({ body: { dashboardViews: await listDashboardViews(principal.pixelId, query.type) } }),
);
