import { routes } from '../../lib/routes';
import { copyDashboardView } from '../../shared/dashboards/dashboard-view-service';
import { apiHandler } from '../../shared/http/api-handler';
import { withEmptyBodyAsObject } from '../../shared/http/optional-body';
import { copyDashboardViewSchema, dashboardViewPathSchema } from '../../shared/schemas/dashboard-view';

/** POST a copy of a view as a new view, named `<name> (copy)` unless a name is sent. The body is optional. */
export const handler = withEmptyBodyAsObject(
  apiHandler(
    { route: routes.copyDashboardView, schemas: { body: copyDashboardViewSchema, path: dashboardViewPathSchema } },
    async ({ body, path, principal, receivedAt }) => ({
      body: {
        dashboardView: await copyDashboardView(
          { pixelId: principal.pixelId, apiKeyPk: principal.apiKeyPk, requestTime: receivedAt },
          path.dashboardViewId,
          body.name,
        ),
      },
    }),
  ),
);
