import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadIdempotency } from '../../shared/http/idempotency-loader';
import { loadOnce } from '../../shared/config/lazy';

const costSettingsService = loadOnce(() => import('../../shared/costs/cost-settings-service'));

/** PUT replaces the cost settings as a whole and announces it with `accountUpdated` (`costSettings`). */
export const handler = apiHandler(
  { route: routes.putCostSettings, idempotency: loadIdempotency, schemas: { body: async () => (await import('../../shared/schemas/cost-settings')).costSettingsInputSchema } },
  async ({ body, principal, receivedAt }) => {
    const { replaceCostSettings } = await costSettingsService();
    return {
      body: { costSettings: await replaceCostSettings({ pixelId: principal.pixelId, input: body, apiKeyPk: principal.apiKeyPk, requestTime: receivedAt }) },
    };
  },
);
