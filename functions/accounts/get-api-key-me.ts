import { routes } from '../../lib/routes';
import { describeApiKey } from '../../shared/auth/key-introspection';
import { apiHandler } from '../../shared/http/api-handler';

/** GET the calling key's own description; any active key may, so a script can see what it holds before a 403 tells it. */
export const handler = apiHandler({ route: routes.getApiKeyMe }, async ({ principal }) => ({ body: { apiKey: describeApiKey(principal) } }));
