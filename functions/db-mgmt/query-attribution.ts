import { routes } from '../../lib/routes';
import { shapeAttribution } from '../../shared/attribution/attribution-engine';
import { runAttributionQuery } from '../../shared/attribution/attribution-service';
import { apiHandler } from '../../shared/http/api-handler';
import { queryAttributionRequestSchema } from '../../shared/schemas/query-attribution';

/** POST an attribution query: orders credited to the touchpoints of their buyers' journeys, per model. */
export const handler = apiHandler(
  { route: routes.queryAttribution, schemas: { body: queryAttributionRequestSchema } },
  async ({ body, principal }) => {
    const { spec, primary, compare } = await runAttributionQuery(principal.pixelId, body);
    return { body: shapeAttribution(spec, { dateRange: body.dateRange, compareDateRange: body.compareDateRange }, primary, compare) };
  },
);
