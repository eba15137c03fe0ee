import { routes } from '../../lib/routes';
import { EVENT_LIMITS } from '../../shared/tracking/event-schema';
import { ingestEvents } from '../../shared/tracking/ingest-service';
import { parseIngestBody } from '../../shared/tracking/parse-ingest-body';
import { trackingApiHandler } from '../../shared/tracking/tracking-api-handler';

/** POST server-side tracking events: one event, or a batch of 1 to 100 (README "Events API"). */
export const handler = trackingApiHandler(
  { scope: routes.ingestEvents.scope, maxBodyBytes: EVENT_LIMITS.bodyBytes },
  async ({ body, principal, receivedAt }) => ({
    body: await ingestEvents(principal.pixelId, parseIngestBody(body, receivedAt), receivedAt),
  }),
);
