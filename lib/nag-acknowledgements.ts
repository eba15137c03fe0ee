import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Every cdk-nag finding this service accepts, each with its reason, in one place for review.
 *
 * Each one is attached to the construct it is about (one function, one role, one route), never
 * to the stack or the app, so the same rule still fires on anything added later. Ids carry the
 * plugin prefix (`<pack>::<rule>[<finding>]`): that is how aws-cdk-lib matches an
 * acknowledgement to a plugin's violation, and it keeps the acknowledged finding, with its
 * reason, in the synth's validation report instead of dropping it silently.
 */

/** An API function is only ever invoked synchronously by API Gateway. */
export function acknowledgeSynchronousInvocation(lambdaFunction: IConstruct): void {
  Validations.of(lambdaFunction).acknowledge({
    id: 'Serverless::Serverless-LambdaDLQ',
    reason:
      'API Gateway invokes this function synchronously and returns its failure to the caller; a dead-letter queue only ever receives failed asynchronous invocations, so it would stay empty.',
  });
}

/** A stream consumer's failures go to its event source mapping's on-failure queue, not to a function DLQ. */
export function acknowledgeStreamFailureDestination(lambdaFunction: IConstruct): void {
  Validations.of(lambdaFunction).acknowledge({
    id: 'Serverless::Serverless-LambdaDLQ',
    reason:
      'The function is invoked by a DynamoDB stream event source mapping, whose on-failure destination (an SQS queue) receives the records of batches that exhausted their retries; a function dead-letter queue only serves asynchronous invocations and would stay empty.',
  });
}

/** The on-failure queue is itself the end of the line for failed stream batches. */
export function acknowledgeFailureQueueWithoutDlq(queue: IConstruct): void {
  const reason =
    'This queue is the on-failure destination of the stream consumer: it holds descriptions of failed batches for an operator to inspect and redrive; a queue behind it would only hold the same messages again.';
  Validations.of(queue).acknowledge({ id: 'AwsSolutions::AwsSolutions-SQS3', reason }, { id: 'Serverless::Serverless-SQSRedrivePolicy', reason });
}

/**
 * X-Ray's PutTraceSegments/PutTelemetryRecords support no resource-level permissions, so active
 * tracing needs `Resource: *`. The infra test holds every other statement of a function role to
 * named resources, so this acknowledgement cannot hide a second wildcard.
 */
export function acknowledgeTracingWildcard(functionRole: IConstruct): void {
  Validations.of(functionRole).acknowledge({
    id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
    reason:
      'Only the xray:PutTraceSegments and xray:PutTelemetryRecords statement that active tracing adds uses Resource "*": X-Ray offers no resource-level permissions for these actions.',
  });
}

/**
 * The spec's scheme authenticates every request inside the handler (x-api-key hashed and looked
 * up with its x-pixel-id binding, then the route's scope), which API Gateway's JWT, IAM and
 * Lambda authorizers cannot express without a second copy of that logic and an extra invocation.
 */
export function acknowledgeInHandlerAuthorization(route: IConstruct): void {
  Validations.of(route).acknowledge({
    id: 'AwsSolutions::AwsSolutions-APIG4',
    reason:
      'The route is authorized inside its handler by the API-key scheme of the spec (x-api-key hashed and matched with x-pixel-id, then the route scope); a request without a valid key gets 401 before any work is done.',
  });
}

/**
 * The routes that describe the API (the OpenAPI document and its reference page) are public by
 * design: a client reads them before it has a key. They read no data and their function may touch
 * neither the table nor the bus.
 */
export function acknowledgePublicDocumentationRoute(route: IConstruct): void {
  Validations.of(route).acknowledge({
    id: 'AwsSolutions::AwsSolutions-APIG4',
    reason:
      'This route serves the public description of the API (the OpenAPI document or its reference page), which a client reads before it has a key; its function holds no grant on the table or the event bus.',
  });
}
