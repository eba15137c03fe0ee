import type * as z from 'zod';
import { EVENT_LIMITS } from './event-limits';
import { batchBodySchema, singleBodySchema, type TrackingEventInput } from './event-schema';
import { EventsValidationError, type EventProblem, type EventProblemCode } from './ingest-errors';
import { isoDateTime } from '../orders/order-fields';
import { eventIndexOf, isRecord, type BodyForm } from './pipeline-problems';

export interface IngestRequest {
  /** Decides the response shape: `{success, eventsIngested}` or `{success, eventId}`. */
  form: BodyForm;
  events: TrackingEventInput[];
}

/**
 * Reads a parsed JSON body as one of the two forms: a body with an `events` key is a batch,
 * anything else is one event. Every problem of every event is reported at once, and one invalid
 * event rejects the whole request.
 *
 * `receivedAt` bounds `timestamp`; that check is kept out of the schemas so they stay static
 * (built once per container, not per request).
 */
export function parseIngestBody(body: Record<string, unknown>, receivedAt: Date): IngestRequest {
  const form = Object.hasOwn(body, 'events') ? 'batch' : 'single';
  const parsed = form === 'batch' ? batchBodySchema.safeParse(body) : singleBodySchema.safeParse(body);
  const rawEvents = form === 'batch' ? (Array.isArray(body.events) ? body.events : []) : [body];
  const problems = [...(parsed.success ? [] : problemsOf(parsed.error, body, form)), ...timestampProblems(rawEvents, form, receivedAt)];
  if (problems.length > 0 || !parsed.success) throw new EventsValidationError(sortProblems(problems));

  if (form === 'single') {
    const { pixelId: _pixelId, ...event } = parsed.data as z.output<typeof singleBodySchema>;
    return { form, events: [event] };
  }
  return { form, events: (parsed.data as z.output<typeof batchBodySchema>).events };
}

function timestampProblems(rawEvents: readonly unknown[], form: IngestRequest['form'], receivedAt: Date): EventProblem[] {
  const latest = receivedAt.getTime() + EVENT_LIMITS.maxFutureMs;
  const earliest = receivedAt.getTime() - EVENT_LIMITS.maxAgeMs;
  return rawEvents.flatMap((event, index): EventProblem[] => {
    const timestamp = isRecord(event) ? event.timestamp : undefined;
    // A malformed timestamp is reported by the schema; only well-formed ones are placed in time.
    if (typeof timestamp !== 'string' || !isoDateTime.safeParse(timestamp).success) return [];
    const at = Date.parse(timestamp);
    const path = form === 'batch' ? ['events', String(index), 'timestamp'] : ['timestamp'];
    if (at > latest) return [{ index, path, code: 'timestamp_in_future', message: 'Must not be more than 5 minutes after the time the request was received' }];
    if (at < earliest) return [{ index, path, code: 'timestamp_too_old', message: 'Must not be more than 730 days before the time the request was received' }];
    return [];
  });
}

/**
 * zod issues as problems. An unknown key is reported at its own path, one problem per key; a
 * missing key is told apart from a mistyped one by looking at the body itself, so no issue needs
 * to carry the input (which may be an email address) around.
 */
function problemsOf(error: z.ZodError, body: Record<string, unknown>, form: IngestRequest['form']): EventProblem[] {
  // zod still runs length checks on a value of the wrong type (a string where a list belongs is
  // "too long" too); the wrong type is the one problem to report there.
  const mistyped = new Set(error.issues.filter((issue) => issue.code === 'invalid_type').map((issue) => issue.path.join('\u0000')));
  const issues = error.issues.filter((issue) => issue.code === 'invalid_type' || !mistyped.has(issue.path.join('\u0000')));
  return issues.flatMap((issue) => {
    const path = issue.path.map(String);
    const indexOf = (at: string[]) => eventIndexOf(at, form);
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ index: indexOf([...path, key]), path: [...path, key], code: 'unknown_key' as const, message: `Unknown key '${key}' is not allowed` }));
    }
    return [{ index: indexOf(path), path, code: codeOf(issue, body), message: issue.message }];
  });
}

function codeOf(issue: z.core.$ZodIssue, body: unknown): EventProblemCode {
  switch (issue.code) {
    case 'invalid_type':
      return isMissing(body, issue.path) ? 'required' : 'invalid_type';
    case 'too_big':
      return issue.origin === 'string' || issue.origin === 'array' ? 'too_long' : 'out_of_range';
    case 'too_small':
      return issue.origin === 'string' || issue.origin === 'array' ? 'too_short' : 'out_of_range';
    case 'invalid_format':
      return 'invalid_format';
    case 'custom':
      return (issue.params?.code as EventProblemCode | undefined) ?? 'invalid_value';
    default:
      return 'invalid_value';
  }
}

function isMissing(body: unknown, path: ReadonlyArray<PropertyKey>): boolean {
  let parent: unknown = body;
  for (const segment of path.slice(0, -1)) {
    if (!isRecord(parent) && !Array.isArray(parent)) return false;
    parent = (parent as Record<PropertyKey, unknown>)[segment];
  }
  const last = path.at(-1);
  return last !== undefined && isRecord(parent) && !Object.hasOwn(parent, last);
}

/** Body-level problems first, then by event, each event's problems in the order found. */
function sortProblems(problems: EventProblem[]): EventProblem[] {
  return problems
    .map((problem, order) => ({ problem, order }))
    .sort((a, b) => (a.problem.index ?? -1) - (b.problem.index ?? -1) || a.order - b.order)
    .map(({ problem }) => problem);
}
