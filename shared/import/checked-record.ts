import type * as z from 'zod';
import { unreadableParts } from '../http/readable-document';
import { toValidationIssues, type AnySchema } from '../http/zod-issues';
import { formatPath, type ImportProblem } from './rejections';

/**
 * One record of an import file, checked as a request body would be: first for what no document
 * may hold (forbidden keys, unstorable numbers, lone surrogates), then against its schema. Every
 * import CLI reads its records through this, so they refuse the same things with the same words.
 */
export function checkRecord<S extends AnySchema>(value: unknown, schema: S): { data: z.output<S> } | { problems: ImportProblem[] } {
  const unreadable = unreadableParts(value);
  if (unreadable.length > 0) return { problems: unreadable.map((issue) => ({ path: formatPath(issue.path), message: issue.message })) };
  const parsed = schema.safeParse(value);
  if (!parsed.success) return { problems: toValidationIssues(parsed.error).map((issue) => ({ path: formatPath(issue.path), message: issue.message })) };
  return { data: parsed.data as z.output<S> };
}
