import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';

/** GET the pixel's cost settings; every cost zero (amounts in USD) when none were ever set. */
export const handler = apiHandler({ route: routes.getCostSettings }, async ({ principal }) => {
  const { getCostSettings } = await import('../../shared/costs/cost-settings-service');
  return { body: { costSettings: await getCostSettings(principal.pixelId) } };
});
