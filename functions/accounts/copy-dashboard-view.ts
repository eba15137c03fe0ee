import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadIdempotency } from '../../shared/http/idempotency-loader';
import { withEmptyBodyAsObject } from '../../shared/http/optional-body';
import { loadOnce } from '../../shared/config/lazy';

const dashboardViewService = loadOnce(() => import('../../shared/dashboards/dashboard-view-service'));

const viewSchemas = () => import('../../shared/schemas/dashboard-view');

/** POST a copy of a view as a new view, named `<name> (copy)` unless a name is sent. The body is optional. */
export const handler = withEmptyBodyAsObject(
  apiHandler(
    {
      route: routes.copyDashboardView,
    idempotency: loadIdempotency,
      schemas: {
        body: async () => (await viewSchemas()).copyDashboardViewSchema,
        path: async () => (await viewSchemas()).dashboardViewPathSchema,
      },
    },
    async ({ body, path, principal, receivedAt }) => {
      const { copyDashboardView } = await dashboardViewService();
      return {
        body: {
          dashboardView: await copyDashboardView(
            { pixelId: principal.pixelId, apiKeyPk: principal.apiKeyPk, requestTime: receivedAt },
            path.dashboardViewId,
            body.name,
          ),
        },
      };
    },
  ),
);
