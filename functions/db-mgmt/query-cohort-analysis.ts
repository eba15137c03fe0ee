import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadOnce } from '../../shared/config/lazy';

const pricing = loadOnce(() => import('../../shared/analytics/request-cost'));

const cohortService = loadOnce(() => import('../../shared/analytics/cohort-service'));

/** POST a cohort analysis: new customers by acquisition period, their value, retention and margins over the periods after. */
export const handler = apiHandler(
  {
    route: routes.queryCohortAnalysis,
    schemas: { body: async () => (await import('../../shared/schemas/query-cohort')).queryCohortRequestSchema },
    price: async (body) => (await pricing()).priceCohort(body),
  },
  async ({ body, principal }) => {
    const { runCohortAnalysis } = await cohortService();
    return { body: await runCohortAnalysis(principal.pixelId, body) };
  },
);
