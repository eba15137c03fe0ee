import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { logger } from '../../config/logger';
import { NotStartedError, RetryableFault, isRetryableAwsError } from '../../faults';
import { metStoreFault } from '../../request-deadline';
import type { ApiContext } from '../api-context';
import { BadRequestError, HttpError, issueAt } from '../errors';
import { requestIdOf } from './request-id';
import { jsonResponse } from '../response';

/**
 * The one place an error becomes a response. Registered last so that it runs first on error.
 * Client errors carry their own message; anything unexpected becomes a 500 that names only the
 * request id, so no internals leak, and the full error goes to the log under that id.
 */
export const errorResponder = (): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, ApiContext> => ({
  name: 'errorResponder',
  onError: (request) => {
    const { event } = request;
    const error = outOfTimeOnItsOwnSize(request.error, request.context?.api?.outOfTimeAdvice) ?? request.error;
    const requestId = requestIdOf(event);
    if (error instanceof HttpError) {
      if (error.statusCode >= 500) logger.error('Request failed', { requestId, error });
      request.response = jsonResponse(error.statusCode, error.toBody(), error.headers);
      return;
    }
    if (error instanceof RetryableFault || isRetryableAwsError(error)) {
      logger.error('Request failed on a retryable fault', { requestId, error });
      request.response = jsonResponse(
        503,
        { message: 'The service is temporarily unable to complete the request; retry it', requestId },
        { 'retry-after': '1' },
      );
      return;
    }
    logger.error('Request failed unexpectedly', { requestId, error });
    request.response = jsonResponse(500, { message: 'Internal server error', requestId });
  },
});

/**
 * A read-only analytics request that ran out of time without meeting a passing store fault ran
 * out on its own size: a 503 would invite a retry that ends the same way, so it is a 400 that says
 * how to ask for less.
 */
function outOfTimeOnItsOwnSize(error: Error | null, advice: string | undefined): BadRequestError | undefined {
  if (!(error instanceof NotStartedError) || advice === undefined || metStoreFault()) return undefined;
  const message = `This request needs more time than one request may take on this pixel's data; ${advice}`;
  return new BadRequestError(message, [issueAt([], message)]);
}
