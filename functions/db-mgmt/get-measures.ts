import { routes } from '../../lib/routes';
import { listMeasures } from '../../shared/catalog/catalog-search';
import { apiHandler } from '../../shared/http/api-handler';
import { measuresQuerySchema } from '../../shared/schemas/catalog-queries';

/** GET the measures catalog; ungated, so a script or agent can look ids up before anything else. */
export const handler = apiHandler(
  { route: routes.getMeasures, schemas: { query: measuresQuerySchema } },
  async ({ query }) => ({ body: { measures: listMeasures(query) } }),
);
