import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadOnce } from '../../shared/config/lazy';

const pricing = loadOnce(() => import('../../shared/analytics/request-cost'));

const queryAdsService = loadOnce(() => import('../../shared/ads/query-ads-service'));

/** POST the ad listing, with optional daily series per ad (spec 4.2). */
export const handler = apiHandler(
  {
    route: routes.queryAds,
    schemas: { body: async () => (await import('../../shared/schemas/query-ads')).queryAdsRequestSchema },
    price: async (body) => (await pricing()).priceQueryAds(body),
    howToNarrow: 'ask for format "columnar" (several times smaller), or fewer rows (limit), measures or days',
  },
  async ({ body, principal }) => {
    const { queryAds } = await queryAdsService();
    return { body: await queryAds(principal.pixelId, body) };
  },
);
