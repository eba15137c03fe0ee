import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadOnce } from '../../shared/config/lazy';

const dashboardViewService = loadOnce(() => import('../../shared/dashboards/dashboard-view-service'));

/** GET the pixel's dashboard views as summaries, in list order, optionally of one `type`. */
export const handler = apiHandler(
  { route: routes.listDashboardViews, schemas: { query: async () => (await import('../../shared/schemas/dashboard-view')).listDashboardViewsQuerySchema } },
  async ({ query, principal }) => {
    const { listDashboardViews } = await dashboardViewService();
    return { body: { dashboardViews: await listDashboardViews(principal.pixelId, query.type) } };
  },
);
