import { DIMENSIONS, type DimensionCatalogEntry } from './dimensions';
import { FILTER_FIELDS, type FilterContext, type FilterFieldEntry } from './filter-fields';
import { MEASURES, type MeasureCatalogEntry, type MeasureContext } from './measures';

/**
 * True when every whitespace-separated term of `search` occurs, ignoring case, somewhere in
 * `texts`: "meta cpm" finds `meta.cpm` however its title is worded. No search matches everything.
 */
export function matchesSearch(texts: readonly string[], search: string | undefined): boolean {
  const terms = (search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const haystack = texts.join('\n').toLowerCase();
  return terms.every((term) => haystack.includes(term));
}

/** GET /db-mgmt/api/measures: the catalog, optionally narrowed, in catalog order. */
export function listMeasures(query: { context?: MeasureContext; search?: string }): MeasureCatalogEntry[] {
  return MEASURES.filter(
    (measure) =>
      (query.context === undefined || measure.contexts.includes(query.context)) &&
      matchesSearch([measure.id, measure.title, measure.shortTitle, measure.description], query.search),
  );
}

/** GET /db-mgmt/api/filters: the catalog, optionally narrowed, in catalog order. */
export function listFilterFields(query: { context?: FilterContext; search?: string }): FilterFieldEntry[] {
  return FILTER_FIELDS.filter(
    (entry) =>
      (query.context === undefined || entry.applicableContexts.includes(query.context)) &&
      matchesSearch([entry.field, entry.label, entry.description], query.search),
  );
}

/**
 * GET /db-mgmt/api/measures `dimensions`: the dimensions of POST /db-mgmt/api/query, the only
 * context that splits; narrowed by `search` like the measures, empty for another context.
 */
export function listDimensions(query: { context?: MeasureContext; search?: string }): DimensionCatalogEntry[] {
  if (query.context !== undefined && query.context !== 'query') return [];
  return DIMENSIONS.filter((entry) => matchesSearch([entry.id, entry.title, entry.description], query.search));
}
