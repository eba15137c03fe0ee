import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { RequestPrice } from '../../analytics/request-cost';
import { loadOnce } from '../../config/lazy';
import type { ApiContext } from '../api-context';
import { BadRequestError, issueAt, TooManyRequestsError } from '../errors';

const loadPricing = loadOnce(async () => ({
  ...(await import('../../analytics/request-cost')),
  ...(await import('../../auth/authenticate')),
  ...(await import('../../auth/api-key-secret')),
  ...(await import('../../auth/rate-limit')),
}));

const count = (value: number) => Math.round(value).toLocaleString('en-US');

/**
 * Prices a validated analytics request before anything reads data (analytics/request-cost.ts):
 * past a cap it is a 400 that gives the estimate and how to ask for less; otherwise its cost
 * units are counted against the key's cost quota (a 429 when used up), and the quota's state joins
 * the request quota's in the `RateLimit` headers.
 */
export const priceRequest = (
  price: (body: unknown) => RequestPrice | Promise<RequestPrice>,
  /** How this endpoint's client can ask for less, in the 400's words. */
  howToNarrow: string,
): MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, ApiContext> => ({
  name: 'priceRequest',
  before: async ({ event, context }) => {
    const { PRICE_CAPS, countAgainstQuota, hashApiKey, isOverQuota, rateLimitHeaders } = await loadPricing();
    const estimate = await price(context.api.body);
    const refuse = (message: string) => {
      throw new BadRequestError(message, [issueAt([], message)]);
    };
    if (estimate.values > PRICE_CAPS.values) {
      refuse(
        `This request would compute about ${count(estimate.values)} values (${count(estimate.buckets)} time buckets × ${count(estimate.series)} series × ` +
          `${count(estimate.measures)} measures, an answer of about ${(estimate.bytes / 1e6).toFixed(0)} MB), more than the ${count(PRICE_CAPS.values)} a request may; ${howToNarrow}`,
      );
    }
    if (estimate.eventDays > PRICE_CAPS.eventDays) {
      refuse(
        `This request would read every event of ${count(estimate.eventDays)} days one by one (people measures such as events.visitors, or buckets that are not whole UTC hours), ` +
          `more than the ${PRICE_CAPS.eventDays} days a request may; choose a shorter dateRange, leave out the comparison range, or ask for event counts without the people measures`,
      );
    }
    context.api.outOfTimeAdvice = howToNarrow;
    const principal = context.api.principal!;
    const now = context.api.receivedAt.getTime();
    const charged = await countAgainstQuota(hashApiKey(event.headers['x-api-key']!), 'cost', now, estimate.units);
    // The key was found a moment ago; gone now, it was deleted in between: the request still ran its checks.
    if (!charged) return;
    const states = [principal.rateLimit, charged.rateLimit];
    const headers = rateLimitHeaders(states, now);
    context.api.rateLimitHeaders = headers;
    if (isOverQuota(charged.rateLimit)) {
      const { quota, windowSeconds } = charged.rateLimit.limit;
      throw new TooManyRequestsError(
        `This API key has used its cost quota of ${count(quota)} units per ${windowSeconds} s (this request costs ${count(estimate.units)}); retry after ${headers['retry-after']} s, or ask for less`,
        headers,
      );
    }
  },
});
