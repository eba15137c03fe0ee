import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { JsonText } from './json-text';

/** Every response body of this API is JSON, errors included. */
export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: body instanceof JsonText ? body.text : JSON.stringify(body),
  };
}
