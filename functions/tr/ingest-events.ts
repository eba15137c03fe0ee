import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { routes } from '../../lib/routes';
import { metrics } from '../../shared/config/metrics';
import { apiHandler } from '../../shared/http/api-handler';
import { loadIdempotency } from '../../shared/http/idempotency-loader';
import { EVENT_LIMITS } from '../../shared/tracking/event-limits';
import { eventsErrorResponder } from '../../shared/tracking/events-error-responder';
import { loadOnce } from '../../shared/config/lazy';

const ingestion = loadOnce(() => Promise.all([import('../../shared/tracking/parse-ingest-body'), import('../../shared/tracking/ingest-service')]));

/**
 * POST server-side tracking events: one event, or a batch of 1 to 100. The events API reports
 * problems in its own envelope, per event, so it validates the parsed body itself.
 */
export const handler = apiHandler(
  { route: routes.ingestEvents, idempotency: loadIdempotency, jsonBody: true, maxBodyBytes: EVENT_LIMITS.bodyBytes, errorResponder: eventsErrorResponder },
  async ({ rawBody, principal, receivedAt }) => {
    const [{ parseIngestBody }, { ingestEvents }] = await ingestion();
    const request = parseIngestBody(rawBody ?? {}, receivedAt);
    const body = await ingestEvents(principal.pixelId, request, receivedAt);
    metrics.addMetric('EventsAccepted', MetricUnit.Count, request.events.length);
    return { body };
  },
);
