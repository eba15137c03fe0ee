import type * as z from 'zod';
import { issueAt, type ValidationIssue } from './errors';

/**
 * A schema of either zod API, the classic one or `zod/mini` (shared/schemas/zod-mini.ts): both
 * parse through `safeParse`, with the same issues.
 */
export type AnySchema<Out = unknown> = z.core.$ZodType<Out> & {
  safeParse(data: unknown): { success: true; data: Out } | { success: false; error: z.core.$ZodError };
};

/**
 * Flattens zod issues into the spec's `{ message, key, path }` items. An unknown key is reported
 * at its own path (zod reports it at the parent object), one item per key, so a client can point
 * at exactly what to remove.
 */
export function toValidationIssues(error: z.core.$ZodError, prefix: ReadonlyArray<string> = []): ValidationIssue[] {
  return error.issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path.map(String)];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => issueAt([...path, key], `Unknown key '${key}' is not allowed`, 'unknown_key'));
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // A union failure is clearest as the issues of the branch that got furthest.
      const deepest = [...issue.errors].sort((a, b) => depth(b) - depth(a))[0] ?? [];
      if (deepest.length > 0 && depth(deepest) > 0) {
        return deepest.map((inner) => issueAt([...path, ...inner.path.map(String)], inner.message));
      }
    }
    return [issueAt(path, issue.message)];
  });
}

function depth(issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey> }>): number {
  return Math.max(0, ...issues.map((i) => i.path.length));
}
