import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { replaceOrderSettings } from '../../shared/order-settings/order-settings-service';
import { orderSettingsInputSchema } from '../../shared/schemas/order-settings';

/** PUT replaces the order settings as a whole and announces it with `accountUpdated` (spec 4.1). */
export const handler = apiHandler(
  { route: routes.putOrderSettings, schemas: { body: orderSettingsInputSchema } },
  async ({ body, principal, receivedAt }) => ({
    body: {
      orderSettings: await replaceOrderSettings({
        pixelId: principal.pixelId,
        input: body,
        apiKeyPk: principal.apiKeyPk,
        requestTime: receivedAt,
      }),
    },
  }),
);
