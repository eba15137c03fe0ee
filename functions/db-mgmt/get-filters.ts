import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';

/** GET the filter-field catalog: the field ids, operators and contexts a `filters` body may use. */
export const handler = apiHandler(
  { route: routes.getFilters, schemas: { query: async () => (await import('../../shared/schemas/catalog-queries')).filtersQuerySchema } },
  async ({ query }) => {
    const { listFilterFields } = await import('../../shared/catalog/catalog-search');
    return { body: { fields: listFilterFields(query) } };
  },
);
