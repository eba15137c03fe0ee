import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadOnce } from '../../shared/config/lazy';

const pricing = loadOnce(() => import('../../shared/analytics/request-cost'));

const attribution = loadOnce(() => Promise.all([import('../../shared/attribution/attribution-service'), import('../../shared/attribution/attribution-engine')]));

/** POST an attribution query: orders credited to the touchpoints of their buyers' journeys, per model. */
export const handler = apiHandler(
  {
    route: routes.queryAttribution,
    schemas: { body: async () => (await import('../../shared/schemas/query-attribution')).queryAttributionRequestSchema },
    price: async (body) => (await pricing()).priceAttribution(body),
    howToNarrow: 'choose a coarser granularity, a shorter dateRange, or fewer models or measures',
  },
  async ({ body, principal }) => {
    const [{ runAttributionQuery }, { shapeAttribution }] = await attribution();
    const { spec, primary, compare } = await runAttributionQuery(principal.pixelId, body);
    return { body: shapeAttribution(spec, { dateRange: body.dateRange, compareDateRange: body.compareDateRange }, primary, compare) };
  },
);
