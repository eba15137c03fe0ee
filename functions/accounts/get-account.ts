import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';

/** GET the pixel's account: name, reporting time zone, currency (defaults when never set). */
export const handler = apiHandler({ route: routes.getAccount }, async ({ principal }) => {
  const { getAccount } = await import('../../shared/account/account-service');
  return { body: { account: await getAccount(principal.pixelId) } };
});
