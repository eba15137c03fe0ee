import { routes } from '../../lib/routes';
import { listFilterFields } from '../../shared/catalog/catalog-search';
import { apiHandler } from '../../shared/http/api-handler';
import { filtersQuerySchema } from '../../shared/schemas/catalog-queries';

/** GET the filter-field catalog: the field ids, operators and contexts a `filters` body may use. */
export const handler = apiHandler(
  { route: routes.getFilters, schemas: { query: filtersQuerySchema } },
  async ({ query }) => ({ body: { fields: listFilterFields(query) } }),
);
