import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { PayloadTooLargeError } from '../errors';

/** Size of the body as the client sent it, in bytes: base64 bodies are measured decoded, text as UTF-8. */
export function rawBodyBytes(event: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'>): number {
  if (!event.body) return 0;
  return Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}

/**
 * 413 for a body over `maxBytes`, before anything parses it: an oversized body costs no JSON
 * parse and no validation. Runs after authentication, so an anonymous caller learns nothing.
 */
export const bodySizeLimit = (maxBytes: number): MiddlewareObj<APIGatewayProxyEventV2> => ({
  name: 'bodySizeLimit',
  before: ({ event }) => {
    const bytes = rawBodyBytes(event);
    if (bytes > maxBytes) {
      throw new PayloadTooLargeError(`Request body is ${bytes} bytes; the limit is ${maxBytes} bytes (${maxBytes / 1024} KB)`);
    }
  },
});
