import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadOnce } from '../../shared/config/lazy';

const costSettingsService = loadOnce(() => import('../../shared/costs/cost-settings-service'));

/** GET the pixel's cost settings; every cost zero (amounts in USD) when none were ever set. */
export const handler = apiHandler({ route: routes.getCostSettings }, async ({ principal }) => {
  const { getCostSettings } = await costSettingsService();
  return { body: { costSettings: await getCostSettings(principal.pixelId) } };
});
