import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { BadRequestError, issueAt } from '../errors';
import { GZIP_LEVEL, gzipInSlices } from '../parallel-gzip';
import { jsonTextOf } from '../response';

/** Below this a body is sent as is: gzip would save little and cost a round of CPU. */
const MIN_COMPRESSIBLE_BYTES = 1024;

/**
 * Lambda refuses a synchronous response over 6 MB (the whole payload, headers included); the
 * body must stay under it with room to spare. Bigger answers must be narrowed by the client.
 */
export const MAX_RESPONSE_BODY_BYTES = 5_800_000;

function acceptsGzip(event: APIGatewayProxyEventV2): boolean {
  const header = event.headers?.['accept-encoding'] ?? '';
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    const refused = params.some((param) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(param));
    return (coding === 'gzip' || coding === '*') && !refused;
  });
}

/**
 * Gzips large JSON bodies for clients that accept it (most HTTP clients do by default), which is
 * what lets a page of daily series for 500 ads leave Lambda at all; and turns a body that is
 * still too large into a 400 that says how to ask for less, instead of a gateway failure.
 */
/** How a client asks for a smaller answer, where the endpoint has no advice of its own. */
export const DEFAULT_HOW_TO_NARROW = 'ask for fewer rows (limit), measures or days';

export const compressResponse = (
  /** How this endpoint's client can ask for less, in the 400's words. */
  howToNarrow = DEFAULT_HOW_TO_NARROW,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2> => ({
  name: 'compressResponse',
  after: async (request) => {
    const response = request.response;
    if (!response) return;
    // A body written as slices (query-ads) is read as those slices, never joined into a string
    // first: for a 15 MB page the string and its UTF-8 copy were 30 MB of the function's peak.
    const written = jsonTextOf(response);
    if (!written && (!response.body || response.isBase64Encoded)) return;
    const gzip = acceptsGzip(request.event);
    const headers = { ...response.headers, vary: 'accept-encoding' };
    // Encoded once: its length is the byte count, and it is what gzip reads.
    const raw = !written && gzip ? Buffer.from(response.body as string, 'utf8') : undefined;
    const bytes = written ? written.byteLength : raw ? raw.length : Buffer.byteLength(response.body as string, 'utf8');
    if (gzip && bytes >= MIN_COMPRESSIBLE_BYTES) {
      // Compressed once, at the fastest level (begun while a written body was being written): a
      // second, smaller try would double the work of exactly the answers that are already too
      // large, and analytics requests are priced so that such answers are refused before they are built.
      const compressed = (await (written ? written.gzip() : gzipInSlices(raw as Buffer, GZIP_LEVEL))).toString('base64');
      if (compressed.length <= MAX_RESPONSE_BODY_BYTES) {
        request.response = { statusCode: response.statusCode, ...(response.cookies ? { cookies: response.cookies } : {}), headers: { ...headers, 'content-encoding': 'gzip' }, body: compressed, isBase64Encoded: true };
        return;
      }
    } else if (bytes <= MAX_RESPONSE_BODY_BYTES) {
      request.response = { ...response, headers };
      return;
    }
    const message =
      `The response would be ${(bytes / 1_000_000).toFixed(1)} MB, more than the service can send` +
      `${gzip ? ' even compressed' : ' (send Accept-Encoding: gzip to get it compressed)'}; ${howToNarrow}`;
    throw new BadRequestError(message, [issueAt([], message)]);
  },
});
