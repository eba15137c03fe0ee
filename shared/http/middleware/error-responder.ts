import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { logger } from '../../config/logger';
import { RetryableFault, isRetryableAwsError } from '../../faults';
import { HttpError } from '../errors';
import { requestIdOf } from './request-id';
import { jsonResponse } from '../response';

/**
 * The one place an error becomes a response. Registered last so that it runs first on error.
 * Client errors carry their own message; anything unexpected becomes a 500 that names only the
 * request id, so no internals leak, and the full error goes to the log under that id.
 */
export const errorResponder = (): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> => ({
  name: 'errorResponder',
  onError: (request) => {
    const { error, event } = request;
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
