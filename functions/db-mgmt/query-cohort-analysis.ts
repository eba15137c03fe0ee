import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';

/** POST a cohort analysis: new customers by acquisition period, their value, retention and margins over the periods after. */
export const handler = apiHandler(
  { route: routes.queryCohortAnalysis, schemas: { body: async () => (await import('../../shared/schemas/query-cohort')).queryCohortRequestSchema } },
  async ({ body, principal }) => {
    const { runCohortAnalysis } = await import('../../shared/analytics/cohort-service');
    return { body: await runCohortAnalysis(principal.pixelId, body) };
  },
);
