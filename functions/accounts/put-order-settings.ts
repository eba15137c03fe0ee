import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadIdempotency } from '../../shared/http/idempotency-loader';
import { loadOnce } from '../../shared/config/lazy';

const orderSettingsService = loadOnce(() => import('../../shared/order-settings/order-settings-service'));

/** PUT replaces the order settings as a whole and announces it with `accountUpdated` (spec 4.1). */
export const handler = apiHandler(
  { route: routes.putOrderSettings, idempotency: loadIdempotency, schemas: { body: async () => (await import('../../shared/schemas/order-settings')).orderSettingsInputSchema } },
  async ({ body, principal, receivedAt }) => {
    const { replaceOrderSettings } = await orderSettingsService();
    return {
      body: {
        orderSettings: await replaceOrderSettings({
          pixelId: principal.pixelId,
          input: body,
          apiKeyPk: principal.apiKeyPk,
          requestTime: receivedAt,
        }),
      },
    };
  },
);
