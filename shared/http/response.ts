import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { JsonText } from './json-text';

/**
 * Where a response written as JsonText keeps it: the compression middleware gzips its slices
 * directly, so its `body` string (a getter, joined only when read) is never built for a client
 * that takes gzip.
 */
const JSON_TEXT = Symbol('jsonText');

/** Every response body of this API is JSON, errors included. */
export function jsonResponse(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  const response: APIGatewayProxyStructuredResultV2 = {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  };
  if (!(body instanceof JsonText)) return { ...response, body: JSON.stringify(body) };
  Object.defineProperty(response, 'body', { get: () => body.text, enumerable: true, configurable: true });
  Object.defineProperty(response, JSON_TEXT, { value: body });
  return response;
}

/** The JsonText a response was built from, when it was. */
export function jsonTextOf(response: APIGatewayProxyStructuredResultV2): JsonText | undefined {
  return (response as { [JSON_TEXT]?: JsonText })[JSON_TEXT];
}
