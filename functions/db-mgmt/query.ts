import { routes } from '../../lib/routes';
import { runQuery } from '../../shared/analytics/query-service';
import { apiHandler } from '../../shared/http/api-handler';
import { queryRequestSchema } from '../../shared/schemas/query-measures';

/** POST an analytics query: measures over orders, events and ad spend, by time bucket and dimension. */
export const handler = apiHandler(
  { route: routes.query, schemas: { body: queryRequestSchema } },
  async ({ body, principal }) => ({ body: await runQuery(principal.pixelId, body) }),
);
