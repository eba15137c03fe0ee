import { routes } from '../../lib/routes';
import { createDashboardView } from '../../shared/dashboards/dashboard-view-service';
import { apiHandler } from '../../shared/http/api-handler';
import { createDashboardViewSchema } from '../../shared/schemas/dashboard-view';

/** POST a dashboard view from a complete configuration. */
export const handler = apiHandler(
  { route: routes.createDashboardView, schemas: { body: createDashboardViewSchema } },
  async ({ body, principal, receivedAt }) => ({
    body: { dashboardView: await createDashboardView({ pixelId: principal.pixelId, apiKeyPk: principal.apiKeyPk, requestTime: receivedAt }, body) },
  }),
);
