import { routes } from '../../lib/routes';
import { apiHandler } from '../../shared/http/api-handler';
import { loadOnce } from '../../shared/config/lazy';

const catalogSearch = loadOnce(() => import('../../shared/catalog/catalog-search'));

/** GET the filter-field catalog: the field ids, operators and contexts a `filters` body may use. */
export const handler = apiHandler(
  { route: routes.getFilters, schemas: { query: async () => (await import('../../shared/schemas/catalog-queries')).filtersQuerySchema } },
  async ({ query }) => {
    const { listFilterFields } = await catalogSearch();
    return { body: { fields: listFilterFields(query) } };
  },
);
