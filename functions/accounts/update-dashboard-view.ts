import { routes } from '../../lib/routes';
import { updateDashboardView } from '../../shared/dashboards/dashboard-view-service';
import { apiHandler } from '../../shared/http/api-handler';
import { dashboardViewPathSchema, updateDashboardViewSchema } from '../../shared/schemas/dashboard-view';

/** PATCH a view's name, configuration (replaced whole) or order; concurrent PATCHes all land. */
export const handler = apiHandler(
  { route: routes.updateDashboardView, schemas: { body: updateDashboardViewSchema, path: dashboardViewPathSchema } },
  async ({ body, path, principal, receivedAt }) => ({
    body: {
      dashboardView: await updateDashboardView(
        { pixelId: principal.pixelId, apiKeyPk: principal.apiKeyPk, requestTime: receivedAt },
        path.dashboardViewId,
        body,
      ),
    },
  }),
);
