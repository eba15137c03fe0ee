import { routes } from '../../lib/routes';
import { queryAds } from '../../shared/ads/query-ads-service';
import { apiHandler } from '../../shared/http/api-handler';
import { queryAdsRequestSchema } from '../../shared/schemas/query-ads';

/** POST the ad listing, with optional daily series per ad (spec 4.2). */
export const handler = apiHandler(
  {
    route: routes.queryAds,
    schemas: { body: queryAdsRequestSchema },
    howToNarrow: 'ask for format "columnar" (several times smaller), or fewer rows (limit), measures or days',
  },
  async ({ body, principal }) => ({ body: await queryAds(principal.pixelId, body) }),
);
