import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadOnce } from '../../shared/config/lazy';

const accountService = loadOnce(() => import('../../shared/account/account-service'));

/** GET the pixel's account: name, reporting time zone, currency (defaults when never set). */
export const handler = apiHandler({ route: routes.getAccount }, async ({ principal }) => {
  const { getAccount } = await accountService();
  return { body: { account: await getAccount(principal.pixelId) } };
});
