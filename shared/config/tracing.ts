import type { Tracer } from '@aws-lambda-powertools/tracer';

/**
 * Traces of the AWS SDK calls (DynamoDB, EventBridge) in X-Ray, deployed only. The tracer is
 * loaded at the first request (startTracing, awaited by every handler before anything reaches a
 * client), never at module load, so it costs no init; every client is built later still, on first
 * use, and wrapped by `traced`.
 */
let tracer: Tracer | undefined;
let started: Promise<void> | undefined;

/**
 * On in Lambda (AWS_EXECUTION_ENV is set there), unless POWERTOOLS_TRACE_ENABLED is `false`: the
 * same rule as the Powertools tracer's own. Off locally and in tests, where there is no X-Ray
 * daemon to send segments to.
 */
export function tracingEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.AWS_EXECUTION_ENV) && env.POWERTOOLS_TRACE_ENABLED?.toLowerCase() !== 'false' && !env.AWS_SAM_LOCAL;
}

/** Loads the tracer once per container where tracing is on; resolves at once everywhere else. */
export function startTracing(): Promise<void> {
  return (started ??= tracingEnabled()
    ? import('./tracer').then(({ createTracer }) => {
        tracer = createTracer();
      })
    : Promise.resolve());
}

/** The client, with a subsegment per call once tracing has started; unchanged where it is off. */
export function traced<T>(client: T): T {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}
