import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadIdempotency } from '../../shared/http/idempotency-loader';
import { loadOnce } from '../../shared/config/lazy';

const dashboardViewService = loadOnce(() => import('../../shared/dashboards/dashboard-view-service'));

const viewSchemas = () => import('../../shared/schemas/dashboard-view');

/** PATCH a view's name, configuration (replaced whole) or order; concurrent PATCHes all land. */
export const handler = apiHandler(
  {
    route: routes.updateDashboardView,
    idempotency: loadIdempotency,
    schemas: {
      body: async () => (await viewSchemas()).updateDashboardViewSchema,
      path: async () => (await viewSchemas()).dashboardViewPathSchema,
    },
  },
  async ({ body, path, principal, receivedAt }) => {
    const { updateDashboardView } = await dashboardViewService();
    return {
      body: {
        dashboardView: await updateDashboardView(
          { pixelId: principal.pixelId, apiKeyPk: principal.apiKeyPk, requestTime: receivedAt },
          path.dashboardViewId,
          body,
        ),
      },
    };
  },
);
