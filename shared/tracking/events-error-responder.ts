import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { logger } from '../config/logger';
import { RetryableFault, isRetryableAwsError } from '../faults';
import { BadRequestError, ForbiddenError, PayloadTooLargeError, ServiceUnavailableError, TooManyRequestsError, UnauthorizedError } from '../http/errors';
import { IdempotencyKeyInUseError, IdempotencyKeyReusedError, InvalidIdempotencyKeyError } from '../http/idempotency-errors';
import { requestIdOf } from '../http/middleware/request-id';
import { jsonResponse } from '../http/response';
import { pipelineProblems } from './pipeline-problems';
import { EventsValidationError, MAX_DETAILS, type EventProblem, type EventsErrorBody, type EventsErrorCode } from './ingest-errors';

/**
 * The events API's error responder: the same decisions as the shared one (which failures are the
 * client's, which are retryable, nothing internal leaks), answered in the events envelope
 * `{ message, requestId, error: { code, details } }` for every status, 401 and 403 included, so a
 * client of this endpoint reads one shape. `message` stays top-level, so code written for the
 * rest of the API still finds it.
 */
export const eventsErrorResponder = (): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> => ({
  name: 'eventsErrorResponder',
  onError: (request) => {
    const { error, event } = request;
    const requestId = requestIdOf(event);
    const answer = (status: number, code: EventsErrorCode, message: string, details: EventProblem[] = [], headers: Record<string, string> = {}) => {
      const body: EventsErrorBody = { message, requestId, error: { code, details } };
      request.response = jsonResponse(status, body, headers);
    };

    if (error instanceof InvalidIdempotencyKeyError) return answer(400, 'invalid_idempotency_key', error.message);
    if (error instanceof IdempotencyKeyInUseError) return answer(409, 'idempotency_key_in_use', error.message, [], error.headers);
    if (error instanceof IdempotencyKeyReusedError) return answer(422, 'idempotency_key_reused', error.message);
    if (error instanceof EventsValidationError) return answer(400, 'validation_failed', error.message, error.problems.slice(0, MAX_DETAILS));
    if (error instanceof BadRequestError) {
      // From the shared pipeline: located problems (a forbidden key, an unknown query parameter)
      // are validation failures; a body that could not be read as a JSON object at all is malformed.
      if (error.errors.every((issue) => issue.path.length === 0)) return answer(400, 'malformed_body', error.message);
      const located = new EventsValidationError(pipelineProblems(error));
      return answer(400, 'validation_failed', located.message, located.problems.slice(0, MAX_DETAILS));
    }
    if (error instanceof UnauthorizedError) return answer(401, 'unauthorized', error.message);
    if (error instanceof TooManyRequestsError) return answer(429, 'rate_limited', error.message, [], error.headers);
    if (error instanceof ForbiddenError) return answer(403, 'forbidden', error.message);
    if (error instanceof PayloadTooLargeError) return answer(413, 'payload_too_large', error.message);
    if (error instanceof ServiceUnavailableError || error instanceof RetryableFault || isRetryableAwsError(error)) {
      logger.error('Events request failed on a retryable fault', { requestId, error });
      return answer(503, 'service_unavailable', 'The events could not be stored right now; retry the request (events sent with an eventId are never stored twice)', [], {
        'retry-after': '1',
      });
    }
    logger.error('Events request failed unexpectedly', { requestId, error });
    return answer(500, 'internal_error', 'Internal server error');
  },
});
