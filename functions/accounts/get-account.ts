import { routes } from '../../lib/routes';
import { getAccount } from '../../shared/account/account-service';
import { apiHandler } from '../../shared/http/api-handler';

/** GET the pixel's account: name, reporting time zone, currency (defaults when never set). */
export const handler = apiHandler({ route: routes.getAccount }, async ({ principal }) => ({
  body: { account: await getAccount(principal.pixelId) },
}));
