import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { BadRequestError, issueAt, UnreadableBodyError } from '../errors';
import { unreadableParts } from '../readable-document';
import type { ApiContext } from '../api-context';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

const whole = (message: string) => new BadRequestError(message, [issueAt([], message)]);

/** The body's text: base64 checked strictly (Buffer.from skips what it cannot read), UTF-8 checked strictly. */
export function bodyText(event: Pick<APIGatewayProxyEventV2, 'body' | 'isBase64Encoded'>): string | undefined {
  if (event.body === undefined || event.body === null) return undefined;
  if (!event.isBase64Encoded) return event.body;
  if (!BASE64.test(event.body)) throw whole('Request body is marked base64-encoded but is not valid base64');
  try {
    return utf8.decode(Buffer.from(event.body, 'base64'));
  } catch {
    throw whole('Request body is not valid UTF-8');
  }
}

/**
 * Parses the body as a JSON object. Content-Type is not policed: `curl -d` sends a form type by
 * default and rejecting that helps nobody, while a body that is not a JSON object, or holds
 * anything `unreadableParts` names, is a 400.
 */
export const jsonBody = (): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, ApiContext> => ({
  name: 'jsonBody',
  before: ({ event, context }) => {
    const raw = bodyText(event);
    if (raw === undefined || raw.trim() === '') throw whole('Request body is required');
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      throw whole('Request body is not valid JSON');
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw whole('Request body must be a JSON object');
    const issues = unreadableParts(parsed);
    if (issues.length > 0) throw new UnreadableBodyError('Request validation failed', issues, parsed);
    context.api.rawBody = parsed as Record<string, unknown>;
  },
});
