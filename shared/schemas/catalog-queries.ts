import * as z from 'zod';
import { FILTER_CONTEXTS } from '../catalog/filter-fields';
import { MEASURE_CONTEXTS } from '../catalog/measures';

export const CATALOG_SEARCH_MAX_LENGTH = 100;

const search = z.string().max(CATALOG_SEARCH_MAX_LENGTH, { error: `At most ${CATALOG_SEARCH_MAX_LENGTH} characters` }).optional();

/*
 * Strict, so a misspelt parameter (`?serach=`) is a 400 rather than a silently unfiltered list.
 * A repeated parameter arrives comma-joined from API Gateway and fails the enum the same way.
 */

/** GET /db-mgmt/api/measures query parameters. */
export const measuresQuerySchema = z.strictObject({ context: z.enum(MEASURE_CONTEXTS).optional(), search });

/** GET /db-mgmt/api/filters query parameters. */
export const filtersQuerySchema = z.strictObject({ context: z.enum(FILTER_CONTEXTS).optional(), search });
