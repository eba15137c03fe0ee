import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadOnce } from '../../shared/config/lazy';

const orderSettingsService = loadOnce(() => import('../../shared/order-settings/order-settings-service'));

/** GET the pixel's order settings; the spec's defaults when none were ever set. */
export const handler = apiHandler({ route: routes.getOrderSettings }, async ({ principal }) => {
  const { getOrderSettings } = await orderSettingsService();
  return { body: { orderSettings: await getOrderSettings(principal.pixelId) } };
});
