import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadIdempotency } from '../../shared/http/idempotency-loader';
import { loadOnce } from '../../shared/config/lazy';

const dashboardViewService = loadOnce(() => import('../../shared/dashboards/dashboard-view-service'));

/** POST a dashboard view from a complete configuration. */
export const handler = apiHandler(
  {
    route: routes.createDashboardView,
    idempotency: loadIdempotency,
    schemas: { body: async () => (await import('../../shared/schemas/dashboard-view')).createDashboardViewSchema },
  },
  async ({ body, principal, receivedAt }) => {
    const { createDashboardView } = await dashboardViewService();
    return {
      body: { dashboardView: await createDashboardView({ pixelId: principal.pixelId, apiKeyPk: principal.apiKeyPk, requestTime: receivedAt }, body) },
    };
  },
);
