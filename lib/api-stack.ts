import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as lambdaEventSources from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../shared/config/metrics-namespace';
import { PENDING_PREFIX } from '../shared/store/pending-index';
import { TABLE_KEYS, TTL_ATTRIBUTE } from '../shared/store/table-design';
import { ApiFunction } from './constructs/api-function';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_REFERENCE_SCRIPT_FILE, apiReferenceScriptSource } from '../shared/http/docs-assets';
import { Operations } from './constructs/operations';
import { acknowledgeFailureQueueWithoutDlq, acknowledgeInHandlerAuthorization, acknowledgePublicDocumentationRoute } from './nag-acknowledgements';
import { DOCS_HANDLER, publicRouteTable } from './public-routes';
import { routeTable, type RouteCapabilities, type RouteId } from './routes';
import { workers, type WorkerDefinition, type WorkerId } from './workers';
import { AnalyticsStore } from './constructs/analytics-store';

export interface StageThrottling {
  /** Requests per second the stage sustains before answering 429. */
  readonly rateLimit: number;
  /** Requests the stage absorbs in a burst above the rate. */
  readonly burstLimit: number;
}

export interface ApiStackProps extends StackProps {
  /**
   * Stage-wide throttling. The default protects the table and the account's Lambda concurrency
   * from a runaway client while leaving ample headroom for merchant dashboards.
   * @default rate 100/s, burst 200
   */
  readonly throttling?: StageThrottling;
  /** @default 'merchant-analytics-api' */
  readonly serviceName?: string;
}

/** Stream-consumer settings (README "The ingestion pipeline"). */
export const PIPELINE = {
  batchSize: 100,
  retryAttempts: 10,
  /** Iterator age above this for 3 minutes running means projections are late: the alarm fires. */
  iteratorAgeAlarmMs: 60_000,
} as const;

export const DEFAULT_THROTTLING: StageThrottling = { rateLimit: 100, burstLimit: 200 };

/**
 * API Gateway HTTP API variables, one JSON object a line, so CloudWatch Logs Insights can
 * filter by status or route. No header is logged: x-api-key is a credential.
 */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    sourceIp: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
    httpMethod: '$context.httpMethod',
    routeKey: '$context.routeKey',
    path: '$context.path',
    protocol: '$context.protocol',
    status: '$context.status',
    responseLength: '$context.responseLength',
    responseLatencyMs: '$context.responseLatency',
    integrationStatus: '$context.integrationStatus',
    integrationLatencyMs: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
    error: '$context.error.message',
  }),
);

/** The deployed service: one table, one event bus, one HTTP API with a function per route table row. */
export class ApiStack extends Stack {
  readonly table: dynamodb.TableV2;
  readonly eventBus: events.EventBus;
  readonly httpApi: apigw.HttpApi;
  readonly functions: ReadonlyMap<RouteId, ApiFunction>;
  readonly workers: ReadonlyMap<WorkerId, ApiFunction>;
  /** Serves the public routes (the OpenAPI document and the reference page); no table or bus grant. */
  readonly docsFunction: ApiFunction;
  /** The Parquet files of events (and, with them, the analytics the functions compute) and their Glue tables. */
  readonly analyticsStore: AnalyticsStore;
  /** Descriptions of stream batches the consumer failed on after every retry. */
  readonly pipelineFailures: sqs.Queue;
  /** Alarms (all to one SNS topic), the dashboard and the bus archive. */
  readonly operations: Operations;
  private readonly pipelineAlarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: ApiStackProps = {}) {
    super(scope, id, props);
    const throttling = props.throttling ?? DEFAULT_THROTTLING;
    const serviceName = props.serviceName ?? 'merchant-analytics-api';

    const keyAttribute = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });
    this.table = new dynamodb.TableV2(this, 'Table', {
      partitionKey: keyAttribute(TABLE_KEYS.partitionKey),
      sortKey: keyAttribute(TABLE_KEYS.sortKey),
      globalSecondaryIndexes: TABLE_KEYS.indexes.map((index) => ({
        indexName: index.name,
        partitionKey: keyAttribute(index.partitionKey),
        sortKey: keyAttribute(index.sortKey),
        projectionType: dynamodb.ProjectionType.ALL,
      })),
      billing: dynamodb.Billing.onDemand(),
      // The pipeline's trigger: the consumer reads new images of pending items (log entries, outboxes).
      dynamoStream: dynamodb.StreamViewType.NEW_IMAGE,
      // Items that carry `ttl` (epoch seconds) are deleted some time after it (projected log entries,
      // stored events, idempotency keys); readers treat an item past its `ttl` as absent, since
      // deletion is not immediate (and never happens locally).
      timeToLiveAttribute: TTL_ATTRIBUTE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The table holds merchants' settings and key hashes: neither a stack deletion nor a
      // console click may drop it.
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.eventBus = new events.EventBus(this, 'EventBus', {
      description: `Domain events of ${serviceName} (accountUpdated, ...)`,
    });

    this.httpApi = new apigw.HttpApi(this, 'HttpApi', {
      description: `${serviceName}: analytics and account settings for merchants`,
      // The default stage is declared below, where its logging and throttling can be set.
      createDefaultStage: false,
    });

    const accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.httpApi,
      autoDeploy: true,
      throttle: { rateLimit: throttling.rateLimit, burstLimit: throttling.burstLimit },
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(accessLogGroup),
        format: ACCESS_LOG_FORMAT,
      },
    });

    this.analyticsStore = new AnalyticsStore(this, 'AnalyticsStore', { serviceName });

    const functions = new Map<RouteId, ApiFunction>();
    for (const route of routeTable) {
      const constructId = route.id.charAt(0).toUpperCase() + route.id.slice(1);
      const analytics = (route.capabilities as RouteCapabilities).analytics;
      const apiFunction = new ApiFunction(this, constructId, {
        entry: route.handler,
        serviceName,
        description: `${route.method} ${route.path}: ${route.summary}`,
        ...(route.heap ? { heap: route.heap } : {}),
        ...(analytics ? { analyticsEngine: true } : {}),
      });
      if (analytics) this.analyticsStore.bind(apiFunction, analytics);
      // Least privilege from the route table's capabilities column: only the item families the
      // route declares, plus its API key's counter and, for a write route, its idempotency items.
      const { reads, writes, publishes } = route.capabilities;
      apiFunction
        .bindTableItems(this.table, { reads, writes: route.writes ? [...writes, 'idempotency'] : writes })
        .allowKeyQuotaCounting(this.table);
      if (publishes) apiFunction.bindEventBus(this.eventBus);
      functions.set(route.id, apiFunction);

      const httpRoutes = this.httpApi.addRoutes({
        path: route.path,
        methods: [apigw.HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${constructId}Integration`, apiFunction.lambdaFunction, {
          payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
        }),
      });
      for (const httpRoute of httpRoutes) acknowledgeInHandlerAuthorization(httpRoute);
    }
    this.functions = functions;
    this.docsFunction = this.publicDocumentation(serviceName);
    this.pipelineFailures = new sqs.Queue(this, 'PipelineFailures', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledgeFailureQueueWithoutDlq(this.pipelineFailures);
    this.workers = this.pipelineWorkers(serviceName, this.pipelineFailures);

    this.operations = new Operations(this, 'Operations', {
      serviceName,
      routes: routeTable.map((route) => ({ id: route.id, routeKey: `${route.method} ${route.path}`, fn: functions.get(route.id)! })),
      workers: [...this.workers].map(([workerId, fn]) => ({ id: workerId, fn })),
      table: this.table,
      eventBus: this.eventBus,
      otherAlarms: this.pipelineAlarms,
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.operations.alarmTopic.topicArn,
      description: 'The SNS topic every alarm notifies: subscribe a pager or a mailbox to it',
    });
    new CfnOutput(this, 'EventBusArn', { value: this.eventBus.eventBusArn, description: 'The domain event bus (archived for 365 days, for replay)' });

    new CfnOutput(this, 'PipelineFailureQueueUrl', {
      value: this.pipelineFailures.queueUrl,
      description: 'Stream batches the pipeline consumer gave up on (inspect, fix, redrive)',
    });
    new CfnOutput(this, 'ApiUrl', { value: stage.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'AnalyticsBucketName', {
      value: this.analyticsStore.bucket.bucketName,
      description: 'The analytics store (Parquet per pixel and UTC date); the import CLIs target it with --bucket <name>',
    });
    new CfnOutput(this, 'AnalyticsGlueDatabase', { value: this.analyticsStore.database.ref, description: 'The Glue database describing the analytics store, for Athena' });
    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'The service table; the keys CLI targets it with --table <name>',
    });
    new CfnOutput(this, 'EventBusName', { value: this.eventBus.eventBusName, description: 'Where domain events are published' });
  }

  /**
   * The public routes: one function, no grant on the table or the bus, the reference page's script
   * shipped next to its bundle. No authorizer, like every route, and no key check either.
   */
  private publicDocumentation(serviceName: string): ApiFunction {
    const projectRoot = fileURLToPath(new URL('../', import.meta.url));
    const docs = new ApiFunction(this, 'PublicDocs', {
      entry: DOCS_HANDLER,
      serviceName,
      description: `${publicRouteTable.map((route) => route.path).join(', ')}: the API description, public`,
      assets: [{ from: relative(projectRoot, apiReferenceScriptSource(projectRoot)), to: API_REFERENCE_SCRIPT_FILE }],
    });
    const integration = new HttpLambdaIntegration('PublicDocsIntegration', docs.lambdaFunction, {
      payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
    });
    for (const route of publicRouteTable) {
      const httpRoutes = this.httpApi.addRoutes({ path: route.path, methods: [apigw.HttpMethod.GET], integration });
      for (const httpRoute of httpRoutes) acknowledgePublicDocumentationRoute(httpRoute);
    }
    new CfnOutput(this, 'ApiReferenceUrl', { value: `${this.httpApi.apiEndpoint}/docs`, description: 'The API reference page (public); the document is at /openapi.json' });
    return docs;
  }

  /**
   * The consumer behind the table stream: every worker row gets a function reading the stream,
   * filtered to items entering or changing in the pending index, with batching, bisect-on-error,
   * a bounded retry count, partial batch responses and an encrypted on-failure queue; its iterator
   * age (how late projections are) has an alarm, as do the failure queue and parked items. The
   * consumer retries a failing item itself (its recorded failure is a MODIFY the filter passes)
   * and parks it at the last attempt, so Lambda's own retries and the queue are left for batches
   * whose failures could not even be recorded.
   */
  private pipelineWorkers(serviceName: string, queue: sqs.Queue): Map<WorkerId, ApiFunction> {
    const built = new Map<WorkerId, ApiFunction>();
    for (const [id, worker] of Object.entries(workers) as Array<[WorkerId, (typeof workers)[WorkerId]]>) {
      const constructId = `Worker${id.charAt(0).toUpperCase()}${id.slice(1)}`;
      const analytics = (worker as WorkerDefinition).analytics;
      const fn = new ApiFunction(this, constructId, {
        entry: worker.handler,
        serviceName,
        description: worker.summary,
        invokedBy: 'eventSourceMapping',
        ...(analytics ? { analyticsEngine: true } : {}),
      });
      if (analytics) this.analyticsStore.bind(fn, analytics);
      // The consumer stays table-wide: it projects every family of the pipeline (log, event pages,
      // dedup index, orders, read models, journeys) and clears the outboxes of the heads, for any
      // pixel a stream record names; a per-family list would be nearly the whole table anyway.
      fn.bindTable(this.table, 'readWrite').bindEventBus(this.eventBus);
      // Named stream actions on the stream alone (CDK's grantStreamRead adds ListStreams on "*").
      fn.role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator', 'dynamodb:ListStreams'],
          resources: [this.table.tableStreamArn!],
        }),
      );
      new lambda.EventSourceMapping(this, `${constructId}Stream`, {
        target: fn.lambdaFunction,
        eventSourceArn: this.table.tableStreamArn!,
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: PIPELINE.batchSize,
        bisectBatchOnError: true,
        retryAttempts: PIPELINE.retryAttempts,
        reportBatchItemFailures: true,
        // One batch at a time per shard: a pixel's log entries are never projected concurrently.
        parallelizationFactor: 1,
        onFailure: new lambdaEventSources.SqsDlq(queue),
        filters: [
          lambda.FilterCriteria.filter({
            eventName: lambda.FilterRule.or('INSERT', 'MODIFY'),
            dynamodb: { NewImage: { GSI2PK: { S: lambda.FilterRule.beginsWith(PENDING_PREFIX) } } },
          }),
        ],
      });
      this.pipelineAlarms.push(new cloudwatch.Alarm(this, `${constructId}IteratorAgeAlarm`, {
        alarmDescription: `${worker.summary}: projections are more than ${PIPELINE.iteratorAgeAlarmMs / 1000} s behind`,
        metric: fn.lambdaFunction.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) }),
        threshold: PIPELINE.iteratorAgeAlarmMs,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }));
      built.set(id, fn);
    }
    // Items the consumer parked after their last attempt wait for an operator: any one alarms.
    this.pipelineAlarms.push(new cloudwatch.Alarm(this, 'PipelineParkedAlarm', {
      alarmDescription: 'The pipeline consumer parked pending items that kept failing: `npm run replay-parked -- list --table <TableName>` says why; fix the cause, then replay them',
      metric: new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: 'EntriesParked', dimensionsMap: { service: serviceName }, statistic: 'Sum', period: Duration.minutes(5) }),
      threshold: 0,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }));
    this.pipelineAlarms.push(new cloudwatch.Alarm(this, 'PipelineFailuresAlarm', {
      alarmDescription: 'The pipeline consumer gave up on a stream batch: its records are described in the failure queue',
      metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
      threshold: 0,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    }));
    return built;
  }
}
