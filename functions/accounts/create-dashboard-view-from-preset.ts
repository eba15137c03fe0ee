import { routes } from '../../lib/routes';
import { createDashboardViewFromPreset } from '../../shared/dashboards/dashboard-view-service';
import { apiHandler } from '../../shared/http/api-handler';
import { dashboardViewFromPresetSchema } from '../../shared/schemas/dashboard-view';

/** POST a view built from a list of measures: one auto-laid-out sparkline tile each (spec 4.4). */
export const handler = apiHandler(
  { route: routes.createDashboardViewFromPreset, schemas: { body: dashboardViewFromPresetSchema } },
  async ({ body, principal, receivedAt }) => ({
    body: {
      dashboardView: await createDashboardViewFromPreset(
        { pixelId: principal.pixelId, apiKeyPk: principal.apiKeyPk, requestTime: receivedAt },
        body,
      ),
    },
  }),
);
