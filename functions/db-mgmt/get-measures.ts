import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';

/** GET the measures catalog, with the dimensions query can split them by; ungated, so a script or agent can look ids up before anything else. */
export const handler = apiHandler(
  { route: routes.getMeasures, schemas: { query: async () => (await import('../../shared/schemas/catalog-queries')).measuresQuerySchema } },
  async ({ query }) => {
    const { listDimensions, listMeasures } = await import('../../shared/catalog/catalog-search');
    return { body: { measures: listMeasures(query), dimensions: listDimensions(query) } };
  },
);
