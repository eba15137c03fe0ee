import { UnreadableBodyError, type BadRequestError } from '../http/errors';
import type { EventProblem } from './ingest-errors';

/** The two forms of an events body: one event, or `{ events: [...] }`. */
export type BodyForm = 'batch' | 'single';

/**
 * Problems the shared request pipeline found before this endpoint's own validation (a forbidden
 * key anywhere in the body, nesting too deep, an unknown query parameter), in the events
 * envelope. A query parameter belongs to no event; a body path is located like any other.
 */
export function pipelineProblems(error: BadRequestError): EventProblem[] {
  const body = error instanceof UnreadableBodyError ? error.body : undefined;
  const form = isRecord(body) && Object.hasOwn(body, 'events') ? 'batch' : 'single';
  return error.errors.map((issue) => ({
    index: issue.path[0] === 'query' || issue.path.length === 0 ? null : eventIndexOf(issue.path, form),
    path: issue.path,
    code: issue.code ?? 'invalid_value',
    message: issue.message,
  }));
}

/** The event a path from the body root points into: 0 in the single form, `events[i]` in a batch. */
export function eventIndexOf(path: readonly string[], form: BodyForm): number | null {
  if (form === 'single') return 0;
  return path[0] === 'events' && path[1] !== undefined && /^\d+$/.test(path[1]) ? Number(path[1]) : null;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
