import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadOnce } from '../../shared/config/lazy';

const catalogSearch = loadOnce(() => import('../../shared/catalog/catalog-search'));

/** GET the measures catalog, with the dimensions query can split them by; ungated, so a script or agent can look ids up before anything else. */
export const handler = apiHandler(
  { route: routes.getMeasures, schemas: { query: async () => (await import('../../shared/schemas/catalog-queries')).measuresQuerySchema } },
  async ({ query }) => {
    const { listDimensions, listMeasures } = await catalogSearch();
    return { body: { measures: listMeasures(query), dimensions: listDimensions(query) } };
  },
);
