import { Metrics } from '@aws-lambda-powertools/metrics';
import { lazySingleton } from './lazy';
import { METRICS_NAMESPACE } from './metrics-namespace';

/**
 * One CloudWatch metrics emitter (embedded metric format) for every function: the API's request
 * metrics, the pipeline's accepted and projected events and its lag. Namespace and service come
 * from the standard POWERTOOLS_* variables; the local server turns it off (POWERTOOLS_METRICS_DISABLED)
 * so the terminal shows readable lines, not EMF documents. Built on first use, not at module load.
 */
export const metrics: Metrics = lazySingleton(
  () =>
    new Metrics({
      namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? METRICS_NAMESPACE,
      serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'analytics-api',
    }),
);
