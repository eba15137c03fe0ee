import { routes } from '../../lib/routes';
import { runCohortAnalysis } from '../../shared/analytics/cohort-service';
import { apiHandler } from '../../shared/http/api-handler';
import { queryCohortRequestSchema } from '../../shared/schemas/query-cohort';

/** POST a cohort analysis: new customers by acquisition period, their value, retention and margins over the periods after. */
export const handler = apiHandler(
  { route: routes.queryCohortAnalysis, schemas: { body: queryCohortRequestSchema } },
  async ({ body, principal }) => ({ body: await runCohortAnalysis(principal.pixelId, body) }),
);
