import { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * The Powertools tracer (X-Ray). Loaded by tracing.ts only where tracing is on: loading the X-Ray
 * SDK installs an async hook that every promise of the process then pays for, which a test run or
 * the local server must not.
 *
 * HTTPS requests are not captured globally: the only outbound calls are AWS SDK calls, which the
 * clients' own subsegments already show, with the operation and table or bus.
 */
export function createTracer(): Tracer {
  return new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'analytics-api', captureHTTPsRequests: false });
}
