import { routes } from '../../lib/routes';
import { replaceCostSettings } from '../../shared/costs/cost-settings-service';
import { apiHandler } from '../../shared/http/api-handler';
import { costSettingsInputSchema } from '../../shared/schemas/cost-settings';

/** PUT replaces the cost settings as a whole and announces it with `accountUpdated` (`costSettings`). */
export const handler = apiHandler(
  { route: routes.putCostSettings, schemas: { body: costSettingsInputSchema } },
  async ({ body, principal, receivedAt }) => ({
    body: { costSettings: await replaceCostSettings({ pixelId: principal.pixelId, input: body, apiKeyPk: principal.apiKeyPk, requestTime: receivedAt }) },
  }),
);
