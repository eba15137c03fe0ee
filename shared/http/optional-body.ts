import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { bodyText } from './middleware/json-body';

/** No body, or only whitespace; a body that cannot be decoded is not blank, and the pipeline says why. */
function isBlank(event: APIGatewayProxyEventV2): boolean {
  try {
    return (bodyText(event) ?? '').trim() === '';
  } catch {
    return false;
  }
}

/**
 * For an endpoint whose body is optional (copy a view): no body, or only whitespace, is read as
 * `{}`, so the usual pipeline still parses and validates a body that is sent. Authentication runs
 * first either way; only the body the pipeline sees changes.
 */
export function withEmptyBodyAsObject<R>(
  handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<R>,
): (event: APIGatewayProxyEventV2, context: Context) => Promise<R> {
  return (event, context) => {
    const blank = isBlank(event);
    return handler(blank ? { ...event, body: '{}', isBase64Encoded: false } : event, context);
  };
}
