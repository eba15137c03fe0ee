import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadIdempotency } from '../../shared/http/idempotency-loader';
import { loadOnce } from '../../shared/config/lazy';

const dashboardViewService = loadOnce(() => import('../../shared/dashboards/dashboard-view-service'));

/** POST a view built from a list of measures: one auto-laid-out sparkline tile each (spec 4.4). */
export const handler = apiHandler(
  {
    route: routes.createDashboardViewFromPreset,
    idempotency: loadIdempotency,
    schemas: { body: async () => (await import('../../shared/schemas/dashboard-view')).dashboardViewFromPresetSchema },
  },
  async ({ body, principal, receivedAt }) => {
    const { createDashboardViewFromPreset } = await dashboardViewService();
    return {
      body: {
        dashboardView: await createDashboardViewFromPreset(
          { pixelId: principal.pixelId, apiKeyPk: principal.apiKeyPk, requestTime: receivedAt },
          body,
        ),
      },
    };
  },
);
