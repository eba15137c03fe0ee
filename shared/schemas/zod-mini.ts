import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';

/**
 * What the schemas written with `zod/mini` share. zod's classic API is one object graph that no
 * bundler can trim (about 90 KB of every function's bundle, and 150 KB of its source map, which
 * Node reads at load), while `zod/mini` is functions a bundler keeps only when used (27 to 34 KB
 * for what these schemas use): a function that bundles no classic schema loads measurably faster
 * (README, "Benchmarks"). Parsing is the same: the classic methods are these same checks.
 *
 * Unlike the classic API, `zod/mini` installs no locale, so its issues would read "Invalid input";
 * the English one is installed here, by every module that imports this one, before any parse.
 */
z.config(en());

/**
 * A copy of `schema` that documents itself, as the classic `.describe()` makes one: a copy, so
 * that one schema used in several places can be described differently in each.
 */
export function described<T extends z.ZodMiniType>(schema: T, description: string): T {
  return withMeta(schema, { description });
}

/** A copy of `schema` with OpenAPI metadata (`id`, `$ref`, `description`…), as the classic `.meta()` makes one. */
export function withMeta<T extends z.ZodMiniType>(schema: T, meta: z.core.GlobalMeta): T {
  const copy = z.clone(schema);
  z.globalRegistry.add(copy, meta);
  return copy;
}

/**
 * Reports a problem from inside a `z.transform`, as the classic API's `ctx.addIssue` does there:
 * `zod/mini` hands a transform the bare parse payload, which has no `addIssue`.
 */
export function addTransformIssue(
  payload: z.core.ParsePayload,
  issue: { message: string; path?: PropertyKey[]; params?: Record<string, unknown>; input?: unknown },
): void {
  payload.issues.push({ code: 'custom', input: payload.value, ...issue } as z.core.$ZodRawIssue);
}
