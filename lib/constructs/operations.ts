import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../shared/config/metrics-namespace';
import type { ApiFunction } from './api-function';

/** Where alarm thresholds live, so the README and the infra tests quote the same numbers. */
export const ALARM_THRESHOLDS = {
  /** Share of a route's requests answered 5xx over 5 minutes. */
  serverErrorRate: 0.05,
  /** A route's p99 handler latency over 5 minutes, three periods running. */
  p99LatencyMs: 3_000,
  /** Any Lambda error or throttle, any DynamoDB throttle, in 5 minutes. */
  anyInFiveMinutes: 0,
} as const;


export interface OperationsProps {
  serviceName: string;
  /** `<METHOD> <path>` of each route, with its function: the `route` dimension of the request metrics. */
  routes: ReadonlyArray<{ id: string; routeKey: string; fn: ApiFunction }>;
  workers: ReadonlyArray<{ id: string; fn: ApiFunction }>;
  table: dynamodb.ITableV2;
  eventBus: events.EventBus;
  /** Alarms the stack built elsewhere (the pipeline's) that should notify too. */
  otherAlarms: readonly cloudwatch.Alarm[];
}

/**
 * What an operations team needs of the deployed service: every alarm notifies one SNS topic (its
 * ARN is an output, to subscribe a pager or mail to), a dashboard shows the same signals, and the
 * bus keeps an archive so published domain events can be replayed to a new or repaired subscriber.
 */
export class Operations extends Construct {
  readonly alarmTopic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    // Encrypted with a key of our own: CloudWatch cannot publish to a topic under the AWS-managed
    // SNS key, whose policy no one may extend.
    const topicKey = new kms.Key(this, 'AlarmTopicKey', { description: `${props.serviceName} alarm topic`, enableKeyRotation: true });
    topicKey.grant(new iam.ServicePrincipal('cloudwatch.amazonaws.com'), 'kms:Decrypt', 'kms:GenerateDataKey*');
    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', {
      displayName: `${props.serviceName} alarms`,
      enforceSSL: true,
      masterKey: topicKey,
    });
    const action = new cloudwatchActions.SnsAction(this.alarmTopic);
    const alarm = (alarmId: string, alarmProps: cloudwatch.AlarmProps) => {
      const built = new cloudwatch.Alarm(this, alarmId, { treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING, ...alarmProps });
      built.addAlarmAction(action);
      this.alarms.push(built);
      return built;
    };
    const requestMetric = (routeKey: string, metricName: string, statistic: string) =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName,
        dimensionsMap: { service: props.serviceName, route: routeKey },
        statistic,
        period: Duration.minutes(5),
      });

    for (const route of props.routes) {
      const name = route.id.charAt(0).toUpperCase() + route.id.slice(1);
      alarm(`${name}ServerErrorRate`, {
        alarmDescription: `${route.routeKey}: more than ${ALARM_THRESHOLDS.serverErrorRate * 100} % of requests answered 5xx in 5 minutes`,
        metric: requestMetric(route.routeKey, 'ServerErrors', 'Average'),
        threshold: ALARM_THRESHOLDS.serverErrorRate,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
      alarm(`${name}LatencyP99`, {
        alarmDescription: `${route.routeKey}: p99 latency above ${ALARM_THRESHOLDS.p99LatencyMs} ms for 15 minutes`,
        metric: requestMetric(route.routeKey, 'Latency', 'p99'),
        threshold: ALARM_THRESHOLDS.p99LatencyMs,
        evaluationPeriods: 3,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }
    for (const { id: fnId, fn } of [...props.routes, ...props.workers]) {
      const name = fnId.charAt(0).toUpperCase() + fnId.slice(1);
      alarm(`${name}LambdaErrors`, {
        alarmDescription: `${fnId}: the function failed (an unhandled error, a timeout or out of memory)`,
        metric: fn.lambdaFunction.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: ALARM_THRESHOLDS.anyInFiveMinutes,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
      alarm(`${name}LambdaThrottles`, {
        alarmDescription: `${fnId}: invocations were throttled (account or reserved concurrency exhausted)`,
        metric: fn.lambdaFunction.metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: ALARM_THRESHOLDS.anyInFiveMinutes,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      });
    }
    // The operations the service uses (an alarm's math expression takes at most 10 metrics).
    const tableThrottles = props.table.metricThrottledRequestsForOperations({
      period: Duration.minutes(5),
      operations: [
        dynamodb.Operation.GET_ITEM,
        dynamodb.Operation.BATCH_GET_ITEM,
        dynamodb.Operation.QUERY,
        dynamodb.Operation.PUT_ITEM,
        dynamodb.Operation.UPDATE_ITEM,
        dynamodb.Operation.DELETE_ITEM,
        dynamodb.Operation.BATCH_WRITE_ITEM,
      ],
    });
    alarm('TableThrottles', {
      alarmDescription: 'DynamoDB throttled requests on the service table',
      metric: tableThrottles,
      threshold: ALARM_THRESHOLDS.anyInFiveMinutes,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
    });
    for (const other of props.otherAlarms) {
      other.addAlarmAction(action);
      this.alarms.push(other);
    }

    props.eventBus.archive('Archive', {
      description: 'Every domain event the service published, for replay to a new or repaired subscriber',
      eventPattern: { account: [Stack.of(this).account] },
      retention: Duration.days(365),
    });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'Requests by route',
            width: 12,
            left: props.routes.map((route) => requestMetric(route.routeKey, 'Requests', 'Sum').with({ label: route.routeKey })),
          }),
          new cloudwatch.GraphWidget({
            title: 'p99 latency by route (ms)',
            width: 12,
            left: props.routes.map((route) => requestMetric(route.routeKey, 'Latency', 'p99').with({ label: route.routeKey })),
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: '4xx and 5xx rates by route',
            width: 12,
            left: props.routes.map((route) => requestMetric(route.routeKey, 'ClientErrors', 'Average').with({ label: `${route.routeKey} 4xx` })),
            right: props.routes.map((route) => requestMetric(route.routeKey, 'ServerErrors', 'Average').with({ label: `${route.routeKey} 5xx` })),
          }),
          new cloudwatch.GraphWidget({
            title: 'Pipeline: events accepted and projected, consumer iterator age (ms)',
            width: 12,
            left: [
              new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: 'EventsAccepted', dimensionsMap: { service: props.serviceName, route: 'POST /tr/api/events' }, statistic: 'Sum' }),
              new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: 'EventsProjected', dimensionsMap: { service: props.serviceName }, statistic: 'Sum' }),
            ],
            right: props.workers.map(({ id: workerId, fn }) => fn.lambdaFunction.metric('IteratorAge', { statistic: 'Maximum' }).with({ label: `${workerId} iterator age` })),
          }),
        ],
        [
          new cloudwatch.GraphWidget({ title: 'DynamoDB throttled requests', width: 12, left: [tableThrottles] }),
          new cloudwatch.AlarmStatusWidget({ title: 'Alarms', width: 12, alarms: this.alarms }),
        ],
      ],
    });
  }
}
