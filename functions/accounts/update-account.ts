import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadIdempotency } from '../../shared/http/idempotency-loader';
import { loadOnce } from '../../shared/config/lazy';

const accountService = loadOnce(() => import('../../shared/account/account-service'));

/** PATCH the account's name, reporting time zone or currency; announced with `accountUpdated`. */
export const handler = apiHandler(
  { route: routes.updateAccount, idempotency: loadIdempotency, schemas: { body: async () => (await import('../../shared/schemas/account')).accountPatchSchema } },
  async ({ body, principal, receivedAt }) => {
    const { updateAccount } = await accountService();
    return { body: { account: await updateAccount({ pixelId: principal.pixelId, patch: body, apiKeyPk: principal.apiKeyPk, requestTime: receivedAt }) } };
  },
);
