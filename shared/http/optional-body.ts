import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

/**
 * For an endpoint whose body is optional (copy a view): no body, or only whitespace, is read as
 * `{}`, so the usual pipeline still parses and validates a body that is sent. Authentication runs
 * first either way; only the body the pipeline sees changes.
 */
export function withEmptyBodyAsObject<R>(
  handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<R>,
): (event: APIGatewayProxyEventV2, context: Context) => Promise<R> {
  return (event, context) => {
    const raw = event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    const blank = raw === undefined || raw === null || raw.trim() === '';
    return handler(blank ? { ...event, body: '{}', isBase64Encoded: false } : event, context);
  };
}
