import { routes } from '../../lib/routes';
import { updateAccount } from '../../shared/account/account-service';
import { apiHandler } from '../../shared/http/api-handler';
import { accountPatchSchema } from '../../shared/schemas/account';

/** PATCH the account's name, reporting time zone or currency; announced with `accountUpdated`. */
export const handler = apiHandler({ route: routes.updateAccount, schemas: { body: accountPatchSchema } }, async ({ body, principal, receivedAt }) => ({
  body: { account: await updateAccount({ pixelId: principal.pixelId, patch: body, apiKeyPk: principal.apiKeyPk, requestTime: receivedAt }) },
}));
