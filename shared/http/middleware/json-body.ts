import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { BadRequestError, issueAt } from '../errors';
import type { ApiContext } from '../api-context';

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Parses the body as a JSON object. Content-Type is not policed: `curl -d` sends a form type by
 * default and rejecting that helps nobody, while a body that is not a JSON object is a 400.
 */
export const jsonBody = (): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, ApiContext> => ({
  name: 'jsonBody',
  before: ({ event, context }) => {
    const raw = event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    if (raw === undefined || raw === null || raw.trim() === '') {
      throw new BadRequestError('Request body is required', [issueAt([], 'Request body is required')]);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw, (key, value) => (FORBIDDEN_KEYS.has(key) ? undefined : value));
    } catch {
      throw new BadRequestError('Request body is not valid JSON', [issueAt([], 'Request body is not valid JSON')]);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new BadRequestError('Request body must be a JSON object', [issueAt([], 'Request body must be a JSON object')]);
    }
    context.api.rawBody = parsed as Record<string, unknown>;
  },
});
