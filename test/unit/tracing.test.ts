import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { afterEach, describe, expect, it, vi } from 'vitest';

const X_RAY_MIDDLEWARE = 'XRaySDKInstrumentation';
const middlewareNames = (client: { middlewareStack: { identify(): string[] } }) => client.middlewareStack.identify().map((entry) => entry.split(' ')[0]);
/** cls-hooked, which the X-Ray SDK loads, registers its namespaces here. */
const xRayLoaded = () => Object.keys((process as { namespaces?: Record<string, unknown> }).namespaces ?? {}).includes('AWSXRay');

afterEach(() => {
  vi.unstubAllEnvs();
  vi.resetModules();
});

describe('tracing of the AWS SDK clients', () => {
  it.each([
    [{ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x' }, true],
    [{ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x', POWERTOOLS_TRACE_ENABLED: 'false' }, false],
    [{ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x', POWERTOOLS_TRACE_ENABLED: 'FALSE' }, false],
    [{ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x', POWERTOOLS_TRACE_ENABLED: 'true' }, true],
    [{ AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x', AWS_SAM_LOCAL: 'true' }, false],
    [{}, false],
    [{ POWERTOOLS_TRACE_ENABLED: 'true' }, false],
  ])('is on only in Lambda and not turned off: %j -> %s', async (env, expected) => {
    const { tracingEnabled } = await import('../../shared/config/tracing');
    expect(tracingEnabled(env)).toBe(expected);
  });

  it('is off in tests and locally: clients stay as built and the X-Ray SDK is never loaded', async () => {
    vi.stubEnv('AWS_EXECUTION_ENV', undefined);
    const { startTracing, traced } = await import('../../shared/config/tracing');
    await startTracing();

    const dynamo = traced(new DynamoDBClient({ region: 'us-east-1' }));
    const bus = traced(new EventBridgeClient({ region: 'us-east-1' }));

    expect(middlewareNames(dynamo)).not.toContain(X_RAY_MIDDLEWARE);
    expect(middlewareNames(bus)).not.toContain(X_RAY_MIDDLEWARE);
    expect(xRayLoaded()).toBe(false);
  });

  it('in Lambda, loads the tracer at the first request, not before, and captures every client built after it', async () => {
    vi.stubEnv('AWS_EXECUTION_ENV', 'AWS_Lambda_nodejs24.x');
    const { startTracing, traced } = await import('../../shared/config/tracing');
    expect(xRayLoaded()).toBe(false);

    await startTracing();
    const dynamo = traced(new DynamoDBClient({ region: 'us-east-1' }));
    const bus = traced(new EventBridgeClient({ region: 'us-east-1' }));

    expect(xRayLoaded()).toBe(true);
    expect(middlewareNames(dynamo)).toContain(X_RAY_MIDDLEWARE);
    expect(middlewareNames(bus)).toContain(X_RAY_MIDDLEWARE);
  });
});
