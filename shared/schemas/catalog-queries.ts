import * as z from 'zod/mini';
import './zod-mini';
import { FILTER_CONTEXTS } from '../catalog/filter-fields';
import { MEASURE_CONTEXTS } from '../catalog/measures';

export const CATALOG_SEARCH_MAX_LENGTH = 100;

const search = z.optional(z.string().check(z.maxLength(CATALOG_SEARCH_MAX_LENGTH, { error: `At most ${CATALOG_SEARCH_MAX_LENGTH} characters` })));

/*
 * Strict, so a misspelt parameter (`?serach=`) is a 400 rather than a silently unfiltered list.
 * A repeated parameter arrives comma-joined from API Gateway and fails the enum the same way.
 */

/** GET /db-mgmt/api/measures query parameters. */
export const measuresQuerySchema = z.strictObject({ context: z.optional(z.enum(MEASURE_CONTEXTS)), search });

/** GET /db-mgmt/api/filters query parameters. */
export const filtersQuerySchema = z.strictObject({ context: z.optional(z.enum(FILTER_CONTEXTS)), search });
