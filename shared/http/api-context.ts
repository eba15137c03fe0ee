import type { Context } from 'aws-lambda';
import type { Principal } from '../auth/authenticate';

/** What the middlewares learn about a request, handed to the next one on the Lambda context. */
export interface ApiRequestState {
  requestId: string;
  /** When API Gateway received the request: the "time of the request" of spec 4.1 rule 4. */
  receivedAt: Date;
  principal?: Principal;
  /** Headers that tell the client where its key stands against its quota, on every answer once the key is known. */
  rateLimitHeaders?: Record<string, string>;
  /**
   * For a priced analytics request, the 400's words when it runs out of time on its own size (no
   * passing store fault met): asking again would end the same way, so it is not a 503.
   */
  outOfTimeAdvice?: string;
  rawBody?: Record<string, unknown>;
  body?: unknown;
  query?: unknown;
  path?: unknown;
}

export interface ApiContext extends Context {
  api: ApiRequestState;
}
