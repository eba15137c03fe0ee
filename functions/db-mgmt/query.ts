import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadOnce } from '../../shared/config/lazy';

const pricing = loadOnce(() => import('../../shared/analytics/request-cost'));

const queryService = loadOnce(() => import('../../shared/analytics/query-service'));

/** POST an analytics query: measures over orders, events and ad spend, by time bucket and dimension. */
export const handler = apiHandler(
  {
    route: routes.query,
    schemas: { body: async () => (await import('../../shared/schemas/query-measures')).queryRequestSchema },
    price: async (body) => (await pricing()).priceQuery(body),
    howToNarrow: 'choose a coarser granularity, a shorter dateRange, fewer dimensions or fewer measures',
  },
  async ({ body, principal }) => {
    const { runQuery } = await queryService();
    return { body: await runQuery(principal.pixelId, body) };
  },
);
