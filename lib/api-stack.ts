import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { TABLE_KEYS, TTL_ATTRIBUTE } from '../shared/store/table-design';
import { ApiFunction, type TableAccess } from './constructs/api-function';
import { acknowledgeInHandlerAuthorization } from './nag-acknowledgements';
import { routeTable, type RouteDefinition, type RouteId } from './routes';

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

export const DEFAULT_THROTTLING: StageThrottling = { rateLimit: 100, burstLimit: 200 };

/**
 * What a route's function may do to the table. The route's scope says what the caller may do, so
 * it is the better signal than the method: a POST query under `analytics:read` stays read-only.
 * A route without a scope writes unless it is a GET. Every route at least reads, because
 * authentication looks up the API key on every request. Writers also publish domain events.
 */
export function tableAccessFor(route: Pick<RouteDefinition, 'method' | 'scope'>): TableAccess {
  const writes = route.scope === null ? route.method !== 'GET' : route.scope.endsWith(':write');
  return writes ? 'readWrite' : 'read';
}

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
      // Items that carry `ttl` (epoch seconds) are deleted some time after it; readers treat an
      // item past its `ttl` as absent, since deletion is not immediate (and never happens locally).
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

    const functions = new Map<RouteId, ApiFunction>();
    for (const route of routeTable) {
      const constructId = route.id.charAt(0).toUpperCase() + route.id.slice(1);
      const apiFunction = new ApiFunction(this, constructId, {
        entry: route.handler,
        serviceName,
        description: `${route.method} ${route.path}: ${route.summary}`,
      });
      const access = tableAccessFor(route);
      apiFunction.bindTable(this.table, access);
      if (access === 'readWrite') apiFunction.bindEventBus(this.eventBus);
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

    new CfnOutput(this, 'ApiUrl', { value: stage.url, description: 'Base URL of the API' });
    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'The service table; the keys CLI targets it with --table <name>',
    });
    new CfnOutput(this, 'EventBusName', { value: this.eventBus.eventBusName, description: 'Where domain events are published' });
  }
}
