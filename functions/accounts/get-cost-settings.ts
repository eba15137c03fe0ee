import { routes } from '../../lib/routes';
import { getCostSettings } from '../../shared/costs/cost-settings-service';
import { apiHandler } from '../../shared/http/api-handler';

/** GET the pixel's cost settings; every cost zero (amounts in USD) when none were ever set. */
export const handler = apiHandler({ route: routes.getCostSettings }, async ({ principal }) => ({
  body: { costSettings: await getCostSettings(principal.pixelId) },
}));
