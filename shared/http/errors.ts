/**
 * The error model of the API. Every failure a client can see is one of these classes, and one
 * middleware (`error-responder.ts`) turns them into responses, so no handler writes a status code.
 */

/** One item of the `errors` array of a 400 body (spec section 7). */
export interface ValidationIssue {
  message: string;
  /** The last segment of `path`; `""` when the problem is the body itself. */
  key: string;
  /** Where the problem is, from the body root; array indexes are strings. */
  path: string[];
  /**
   * What kind of problem, for APIs whose error envelope carries a machine-readable code (the
   * events API's `details[].code`); not part of the standard error body.
   */
  code?: IssueCode;
}

/** Kinds of problem found before or outside a route's schema. */
export type IssueCode = 'unknown_key' | 'forbidden_key' | 'too_deep' | 'invalid_format' | 'out_of_range' | 'invalid_value';

export abstract class HttpError extends Error {
  abstract readonly statusCode: number;
  /** Extra response headers, e.g. `allow` on a 405. */
  readonly headers: Record<string, string> = {};

  toBody(): Record<string, unknown> {
    return { message: this.message };
  }
}

export class BadRequestError extends HttpError {
  readonly statusCode = 400;
  constructor(message: string, readonly errors: ValidationIssue[] = []) {
    super(message);
  }
  override toBody(): Record<string, unknown> {
    return { message: this.message, errors: this.errors.map(({ message, key, path }) => ({ message, key, path })) };
  }
}

/**
 * The body is JSON, but not JSON this API reads: a forbidden key, nesting too deep, a string
 * that is not Unicode text, a number the store cannot hold. `body` is the parsed document, so an
 * error envelope that locates problems per item (the events API) can tell which item it is.
 */
export class UnreadableBodyError extends BadRequestError {
  constructor(message: string, errors: ValidationIssue[], readonly body: unknown) {
    super(message, errors);
  }
}

export class UnauthorizedError extends HttpError {
  readonly statusCode = 401;
}

export class ForbiddenError extends HttpError {
  readonly statusCode = 403;
}

export class NotFoundError extends HttpError {
  readonly statusCode = 404;
}

export class MethodNotAllowedError extends HttpError {
  readonly statusCode = 405;
  constructor(allowedMethods: string[]) {
    super('Method Not Allowed');
    this.headers.allow = allowedMethods.join(', ');
  }
}

/** The request conflicts with one in progress; retrying it after `Retry-After` seconds is safe. */
export class ConflictError extends HttpError {
  readonly statusCode = 409;
  constructor(message: string) {
    super(message);
    this.headers['retry-after'] = '1';
  }
}

/** Well-formed, but it cannot be processed as sent (an Idempotency-Key reused for another request). */
export class UnprocessableContentError extends HttpError {
  readonly statusCode = 422;
}

/** The key's quota for this window is used up (auth/rate-limit.ts); `Retry-After` says when it reopens. */
export class TooManyRequestsError extends HttpError {
  readonly statusCode = 429;
  constructor(message: string, headers: Record<string, string>) {
    super(message);
    Object.assign(this.headers, headers);
  }
}

export class PayloadTooLargeError extends HttpError {
  readonly statusCode = 413;
}

/**
 * A dependency failed in a way that a retry can repair (a throttled table, an event bus that
 * did not take the event). The client is told to retry; nothing is half-applied that a retry
 * of the same request would not complete.
 */
export class ServiceUnavailableError extends HttpError {
  readonly statusCode = 503;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.headers['retry-after'] = '1';
  }
}

/** Builds an issue whose `key` is derived from its path, so the two never disagree. */
export function issueAt(path: ReadonlyArray<string | number>, message: string, code?: IssueCode): ValidationIssue {
  const segments = path.map(String);
  return { message, key: segments.at(-1) ?? '', path: segments, ...(code ? { code } : {}) };
}
