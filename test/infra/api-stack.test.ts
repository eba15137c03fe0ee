import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiStack, DEFAULT_THROTTLING, PIPELINE } from '../../lib/api-stack';
import { METRICS_NAMESPACE } from '../../shared/config/metrics-namespace';
import { FUNCTION_DEFAULTS, functionNodeOptions } from '../../lib/function-defaults';
import { publicRouteTable } from '../../lib/public-routes';
import { routeTable, type RouteCapabilities, type RouteId } from '../../lib/routes';
import { workers, type WorkerDefinition } from '../../lib/workers';
import { TABLE_KEYS } from '../../shared/store/table-design';

type Resource = { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string };
type PolicyStatement = { Action: string | string[]; Resource: unknown; Effect: string; Sid?: string; Condition?: unknown };

interface ValidationReport {
  pluginReports: Array<{
    pluginName: string;
    conclusion: string;
    violations: Array<{ ruleName: string; violatingConstructs: Array<{ constructPath: string }> }>;
    suppressedViolations: Array<{ ruleName: string; reason: string; acknowledgedAt: string; acknowledgedId: string }>;
  }>;
}

const outdirs: string[] = [];
afterAll(() => {
  for (const dir of outdirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * Bundling is skipped: esbuild would run once per function on every synth, and these tests are
 * about the template. `npm run synth` is what proves the real bundles build.
 */
function newApp(): App {
  const outdir = mkdtempSync(join(tmpdir(), 'api-stack-test-'));
  outdirs.push(outdir);
  return new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
}

/** The same packs bin/app.ts registers. */
function withNagPacks(app: App): App {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  return app;
}

/** Synthesizes the app; returns the validation report and the error synth threw, if any. */
function synthWithReport(app: App): { report: ValidationReport; error: Error | undefined } {
  let error: Error | undefined;
  try {
    app.synth();
  } catch (caught) {
    error = caught as Error;
  }
  const report = JSON.parse(readFileSync(join(app.outdir, 'validation-report.json'), 'utf8')) as ValidationReport;
  return { report, error };
}

const stringAttribute = (name: string) => ({ AttributeName: name, AttributeType: 'S' });
const asArray = <T,>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

describe('ApiStack template', () => {
  let stack: ApiStack;
  let template: Template;

  beforeAll(() => {
    stack = new ApiStack(newApp(), 'MerchantAnalyticsApi');
    template = Template.fromStack(stack);
  });

  const functionOf = (routeId: RouteId) => {
    const apiFunction = stack.functions.get(routeId);
    if (!apiFunction) throw new Error(`No function for route ${routeId}`);
    return apiFunction;
  };
  const resourceOf = (construct: { node: { defaultChild?: unknown } }) =>
    template.toJSON().Resources[stack.getLogicalId(construct.node.defaultChild as never)] as Resource;
  const policyStatementsOf = (routeId: RouteId): PolicyStatement[] => {
    const policy = resourceOf(functionOf(routeId).role.node.findChild('DefaultPolicy'));
    return (policy.Properties.PolicyDocument as { Statement: PolicyStatement[] }).Statement;
  };
  const actionsOf = (routeId: RouteId) => policyStatementsOf(routeId).flatMap((statement) => asArray(statement.Action));

  it('builds one nodejs24.x function per route with explicit memory, timeout and tracing, on arm64 but for those running the analytics engine (x86_64)', () => {
    // Prepare
    const expected = {
      Runtime: 'nodejs24.x',
      MemorySize: FUNCTION_DEFAULTS.memoryMiB,
      Timeout: FUNCTION_DEFAULTS.timeoutSeconds,
      TracingConfig: { Mode: 'Active' },
      Environment: {
        Variables: Match.objectLike({ NODE_OPTIONS: Match.stringLikeRegexp('^--enable-source-maps( |$)'), POWERTOOLS_SERVICE_NAME: Match.anyValue() }),
      },
    };

    // Act
    const functions = template.findResources('AWS::Lambda::Function');

    // Assess
    // One per route, one per worker, and the one that serves the public documentation routes.
    expect(Object.keys(functions)).toHaveLength(routeTable.length + Object.keys(workers).length + 1);
    template.allResourcesProperties('AWS::Lambda::Function', expected);
    const engineFunctions = [
      ...routeTable.filter((route) => (route.capabilities as RouteCapabilities).analytics).map((route) => functionOf(route.id)),
      ...[...stack.workers].filter(([id]) => (workers[id] as WorkerDefinition).analytics).map(([, fn]) => fn),
    ];
    expect(engineFunctions.length).toBeGreaterThanOrEqual(2);
    for (const [logicalId, resource] of Object.entries(functions)) {
      const runsEngine = engineFunctions.some((fn) => stack.getLogicalId(fn.lambdaFunction.node.defaultChild as never) === logicalId);
      expect((resource as Resource).Properties.Architectures, logicalId).toEqual([runsEngine ? 'x86_64' : 'arm64']);
    }
  });

  it('keeps the analytics store in an encrypted, private, TLS-only bucket with Glue tables over its layout, granted to the functions that use it', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
      LifecycleConfiguration: {
        Rules: Match.arrayWith([Match.objectLike({ Id: 'ExpireCompactedFiles', TagFilters: [{ Key: 'compacted', Value: 'true' }], ExpirationInDays: 1, Status: 'Enabled' })]),
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    template.hasResourceProperties('AWS::Glue::Table', {
      TableInput: Match.objectLike({
        Name: 'events',
        PartitionKeys: [Match.objectLike({ Name: 'pixel', Type: 'string' }), Match.objectLike({ Name: 'date', Type: 'string' })],
        Parameters: Match.objectLike({ 'projection.enabled': 'true', 'projection.pixel.type': 'injected', 'projection.date.type': 'date' }),
        StorageDescriptor: Match.objectLike({ Columns: Match.arrayWith([{ Name: 'event_id', Type: 'string', Comment: Match.anyValue() }, { Name: 'ts', Type: 'timestamp', Comment: Match.anyValue() }]) }),
      }),
    });
    template.hasResourceProperties('AWS::Glue::Table', {
      TableInput: Match.objectLike({
        Name: 'orders',
        PartitionKeys: [Match.objectLike({ Name: 'pixel', Type: 'string' }), Match.objectLike({ Name: 'bucket', Type: 'string' })],
        Parameters: Match.objectLike({ 'projection.bucket.type': 'enum', 'projection.bucket.values': Match.stringLikeRegexp('^00,01,.*,15$') }),
        StorageDescriptor: Match.objectLike({ Columns: Match.arrayWith([{ Name: 'order_id', Type: 'string', Comment: Match.anyValue() }, { Name: 'revision', Type: 'int', Comment: Match.anyValue() }]) }),
      }),
    });
    // The imported facts have theirs too, each with its import id (for the read rule).
    for (const name of ['ads', 'ad_hours', 'fx_rates', 'sku_costs']) {
      template.hasResourceProperties('AWS::Glue::Table', {
        TableInput: Match.objectLike({ Name: name, StorageDescriptor: Match.objectLike({ Columns: Match.arrayWith([{ Name: 'import_id', Type: 'string', Comment: Match.anyValue() }]) }) }),
      });
    }
    template.hasResourceProperties('AWS::Glue::Table', {
      TableInput: Match.objectLike({ Name: 'ad_hours', StorageDescriptor: Match.objectLike({ Columns: Match.arrayWith([{ Name: 'ad_key', Type: 'bigint', Comment: Match.anyValue() }, { Name: 'hour', Type: 'timestamp', Comment: Match.anyValue() }]) }) }),
    });
    // The analytics routes read the bucket, the consumer writes it; neither may delete, and no other route touches it.
    // The query reads the bucket, the consumer writes and compacts it; neither may delete a table
    // file (the consumer tags what compaction replaced, and deletes only the sweep's hints), and no
    // other route touches it.
    const bucketActions = (statements: PolicyStatement[]) =>
      statements.filter((statement) => JSON.stringify(statement.Resource).includes('AnalyticsStoreBucket')).flatMap((statement) => asArray(statement.Action)).sort();
    for (const routeId of ['query', 'queryAds', 'queryAttribution', 'queryCohortAnalysis'] as const) expect(bucketActions(policyStatementsOf(routeId)), routeId).toEqual(['s3:GetObject', 's3:ListBucket']);
    const consumerPolicy = resourceOf(stack.workers.get('projectPending')!.role.node.findChild('DefaultPolicy'));
    expect(bucketActions((consumerPolicy.Properties.PolicyDocument as { Statement: PolicyStatement[] }).Statement)).toEqual(['s3:DeleteObject', 's3:GetObject', 's3:ListBucket', 's3:PutObject', 's3:PutObjectTagging']);
    const deletes = (consumerPolicy.Properties.PolicyDocument as { Statement: PolicyStatement[] }).Statement.filter((statement) => asArray(statement.Action).includes('s3:DeleteObject'));
    expect(deletes.map((statement) => JSON.stringify(statement.Resource))).toEqual([expect.stringContaining('/_compacted/*')]);
    expect(bucketActions(policyStatementsOf('getAccount'))).toEqual([]);
    expect((resourceOf(functionOf('query').lambdaFunction).Properties.Environment as { Variables: Record<string, unknown> }).Variables.ANALYTICS_BUCKET).toBeDefined();
  });

  it("sets each route function's NODE_OPTIONS from the route table: source maps, and the V8 heap sizes a route asks for", () => {
    // Prepare
    const nodeOptionsOf = (routeId: RouteId) => (resourceOf(functionOf(routeId).lambdaFunction).Properties.Environment as { Variables: Record<string, string> }).Variables.NODE_OPTIONS;

    // Act
    const byRoute = routeTable.map((route) => ({ route, nodeOptions: nodeOptionsOf(route.id) }));

    // Assess
    for (const { route, nodeOptions } of byRoute) expect(nodeOptions, route.id).toBe(functionNodeOptions(route.heap));
    // Both heap flags or neither: Lambda's bootstrap drops its own sizes once NODE_OPTIONS names one.
    const oldSpace = FUNCTION_DEFAULTS.memoryMiB - Math.floor(FUNCTION_DEFAULTS.memoryMiB / 10);
    expect(nodeOptionsOf('queryAds')).toBe(`--enable-source-maps --max-semi-space-size=8 --max-old-space-size=${oldSpace}`);
    expect(nodeOptionsOf('getAccount')).toBe('--enable-source-maps');
  });

  it('traces every function with X-Ray and leaves the tracer on (no POWERTOOLS_TRACE_ENABLED=false)', () => {
    // Act
    const functions = Object.values(template.findResources('AWS::Lambda::Function') as Record<string, Resource>);

    // Assess
    for (const fn of functions) {
      expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
      const variables = (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables ?? {};
      expect(String(variables.POWERTOOLS_TRACE_ENABLED ?? 'true').toLowerCase()).not.toBe('false');
    }
  });

  it('gives every function its own log group with a retention and no log-retention custom resource', () => {
    // Prepare
    const logGroups = template.findResources('AWS::Logs::LogGroup') as Record<string, Resource>;

    // Act
    const functionLogGroupIds = routeTable.map((route) => {
      const properties = resourceOf(functionOf(route.id).lambdaFunction).Properties;
      return (properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref;
    });

    // Assess
    expect(new Set(functionLogGroupIds).size).toBe(routeTable.length);
    for (const logGroupId of functionLogGroupIds) {
      expect(logGroups[logGroupId]?.Properties.RetentionInDays).toEqual(expect.any(Number));
    }
    template.resourceCountIs('Custom::LogRetention', 0);
  });

  it('gives functions their own roles without AWS-managed policies', () => {
    // Prepare
    const roles = template.findResources('AWS::IAM::Role') as Record<string, Resource>;

    // Act
    const managedPolicies = Object.values(roles).flatMap((role) => (role.Properties.ManagedPolicyArns as unknown[]) ?? []);

    // Assess
    expect(Object.keys(roles)).toHaveLength(routeTable.length + Object.keys(workers).length + 1);
    expect(managedPolicies).toEqual([]);
  });

  it('declares the table from TABLE_KEYS, on demand, with PITR, deletion protection and retention', () => {
    // Prepare
    const keySchema = (partitionKey: string, sortKey: string) => [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ];
    const indexAttributes = TABLE_KEYS.indexes.flatMap((index) => [index.partitionKey, index.sortKey]);

    // Act
    const tables = template.findResources('AWS::DynamoDB::GlobalTable') as Record<string, Resource>;

    // Assess
    expect(Object.values(tables)).toHaveLength(1);
    expect(Object.values(tables)[0]?.DeletionPolicy).toBe('Retain');
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: keySchema(TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey),
      AttributeDefinitions: Match.arrayEquals(
        [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, ...indexAttributes].map(stringAttribute),
      ),
      GlobalSecondaryIndexes: TABLE_KEYS.indexes.map((index) => ({
        IndexName: index.name,
        KeySchema: keySchema(index.partitionKey, index.sortKey),
        Projection: { ProjectionType: 'ALL' },
      })),
      Replicas: [
        Match.objectLike({
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          DeletionProtectionEnabled: true,
        }),
      ],
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    });
  });

  it('streams new images to the pipeline consumer, filtered to pending items, with retries, bisection, partial failures and an on-failure queue', () => {
    // Prepare
    const consumer = stack.workers.get('projectPending')!;
    const consumerId = stack.getLogicalId(consumer.lambdaFunction.node.defaultChild as never);
    const queueId = stack.getLogicalId(stack.pipelineFailures.node.defaultChild as never);

    // Act
    const mappings = Object.values(template.findResources('AWS::Lambda::EventSourceMapping')) as Resource[];

    // Assess
    template.hasResourceProperties('AWS::DynamoDB::GlobalTable', {
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
    });
    expect(mappings).toHaveLength(1);
    expect(mappings[0]!.Properties).toMatchObject({
      FunctionName: { Ref: consumerId },
      StartingPosition: 'TRIM_HORIZON',
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: PIPELINE.retryAttempts,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ParallelizationFactor: 1,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
    const filter = JSON.parse((mappings[0]!.Properties.FilterCriteria as { Filters: Array<{ Pattern: string }> }).Filters[0]!.Pattern);
    expect(filter).toEqual({ eventName: ['INSERT', 'MODIFY'], dynamodb: { NewImage: { GSI2PK: { S: [{ prefix: 'PENDING#' }] } } } });
    template.hasResourceProperties('AWS::SQS::Queue', { SqsManagedSseEnabled: true });
  });

  it('alarms on every route (5xx rate, p99 latency), every function (errors, throttles), the table, and the consumer, all to one SNS topic', () => {
    // Prepare
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[];
    const topicId = stack.getLogicalId(stack.operations.alarmTopic.node.defaultChild as never);
    const functionCount = routeTable.length + Object.keys(workers).length;

    // Act
    const named = (metricName: string) => alarms.filter((alarm) => alarm.Properties.MetricName === metricName);
    const routeDimension = (alarm: Resource) => (alarm.Properties.Dimensions as Array<{ Name: string; Value: string }>).find((dimension) => dimension.Name === 'route')?.Value;

    // Assess
    expect(named('ServerErrors').map(routeDimension).sort()).toEqual(routeTable.map((route) => `${route.method} ${route.path}`).sort());
    expect(named('Latency').map((alarm) => [routeDimension(alarm), alarm.Properties.ExtendedStatistic])).toHaveLength(routeTable.length);
    expect(named('Latency').every((alarm) => alarm.Properties.ExtendedStatistic === 'p99')).toBe(true);
    expect(named('Errors')).toHaveLength(functionCount);
    expect(named('Throttles')).toHaveLength(functionCount);
    expect(named('IteratorAge')).toHaveLength(Object.keys(workers).length);
    expect(named('ApproximateNumberOfMessagesVisible')).toHaveLength(1);
    expect(named('EntriesParked')).toHaveLength(1);
    // The table's throttles are a math expression over its operations.
    expect(alarms.filter((alarm) => alarm.Properties.Metrics !== undefined)).toHaveLength(1);
    for (const alarm of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
  });

  it('alarms on any pending item the consumer parks, from the metric the consumer function emits', () => {
    // Prepare
    const [alarm] = (Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[]).filter((candidate) => candidate.Properties.MetricName === 'EntriesParked');

    // Assess
    expect(alarm!.Properties).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      Dimensions: [{ Name: 'service', Value: 'merchant-analytics-api' }],
      Statistic: 'Sum',
      Period: 300,
      Threshold: 0,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(alarm!.Properties.AlarmDescription).toContain('npm run replay-parked');
    // The function emits it under the same namespace and service.
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ POWERTOOLS_SERVICE_NAME: 'merchant-analytics-api', POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE }) },
      Description: workers.projectPending.summary,
    });
  });

  it('encrypts the alarm topic with a key CloudWatch may use, and names it and the bus in the outputs', () => {
    // Prepare
    const outputs = template.findOutputs('*');

    // Assess
    template.hasResourceProperties('AWS::SNS::Topic', { KmsMasterKeyId: Match.anyValue() });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: Match.objectLike({ Statement: Match.arrayWith([Match.objectLike({ Principal: { Service: 'cloudwatch.amazonaws.com' } })]) }),
    });
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['AlarmTopicArn', 'EventBusArn']));
  });

  it('archives every event published on the bus, and draws a dashboard', () => {
    template.hasResourceProperties('AWS::Events::Archive', { RetentionDays: 365, EventPattern: { account: [Match.anyValue()] } });
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('lets the consumer read only the table’s stream, write the table and publish to the bus', () => {
    // Prepare
    const role = stack.workers.get('projectPending')!.role;
    const statements = (resourceOf(role.node.findChild('DefaultPolicy')).Properties.PolicyDocument as { Statement: PolicyStatement[] }).Statement;

    // Act
    const actions = statements.flatMap((statement) => asArray(statement.Action));
    const wildcards = statements.filter((statement) => JSON.stringify(statement.Resource).includes('"*"')).flatMap((statement) => asArray(statement.Action));

    // Assess
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetRecords', 'dynamodb:BatchWriteItem', 'dynamodb:UpdateItem', 'events:PutEvents', 'sqs:SendMessage']));
    expect(wildcards.sort()).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
  });

  it('makes every function depend on its role\'s policy only (no DependsOn that a GetAtt already enforces: cfn-lint W3005)', () => {
    const functions = template.findResources('AWS::Lambda::Function') as Record<string, Resource & { DependsOn?: string[] }>;
    for (const [id, fn] of Object.entries(functions)) {
      const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      expect(fn.DependsOn, id).toEqual([expect.stringMatching(/DefaultPolicy/)]);
      expect(fn.DependsOn, id).not.toContain(role);
    }
  });

  it('creates the event bus', () => {
    // Assess
    template.resourceCountIs('AWS::Events::EventBus', 1);
  });

  it('routes `METHOD path` of every route table row to its own function with payload format 2.0', () => {
    // Prepare
    const routes = template.findResources('AWS::ApiGatewayV2::Route') as Record<string, Resource>;
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration') as Record<string, Resource>;

    // Act
    const routeKeys = Object.values(routes).map((route) => route.Properties.RouteKey);
    const integratedFunctions = Object.values(integrations).map((integration) => integration.Properties.IntegrationUri);

    // Assess
    expect(routeKeys.sort()).toEqual([...routeTable, ...publicRouteTable].map((route) => `${route.method} ${route.path}`).sort());
    template.allResourcesProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
    });
    expect(integratedFunctions).toEqual(
      expect.arrayContaining(
        routeTable.map((route) => ({
          'Fn::GetAtt': [stack.getLogicalId(functionOf(route.id).lambdaFunction.node.defaultChild as never), 'Arn'],
        })),
      ),
    );
    expect(new Set(integratedFunctions.map((uri) => JSON.stringify(uri))).size).toBe(routeTable.length + 1);
  });

  it('serves the public documentation routes from one function that may touch neither the table nor the bus', () => {
    // Prepare
    const docs = stack.docsFunction;
    const docsArn = { 'Fn::GetAtt': [stack.getLogicalId(docs.lambdaFunction.node.defaultChild as never), 'Arn'] };
    const routes = Object.values(template.findResources('AWS::ApiGatewayV2::Route') as Record<string, Resource>);
    const integrations = template.findResources('AWS::ApiGatewayV2::Integration') as Record<string, Resource>;
    const policies = Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>).filter((policy) =>
      (policy.Properties.Roles as Array<{ Ref: string }>).some((role) => role.Ref === stack.getLogicalId(docs.role.node.defaultChild as never)),
    );

    // Act
    const publicRoutes = routes.filter((route) => publicRouteTable.some((p) => route.Properties.RouteKey === `GET ${p.path}`));
    const targets = publicRoutes.map((route) => {
      const integrationId = ((route.Properties.Target as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1][1] as { Ref: string }).Ref;
      return integrations[integrationId]!.Properties.IntegrationUri;
    });
    const actions = policies.flatMap((policy) =>
      (policy.Properties.PolicyDocument as { Statement: PolicyStatement[] }).Statement.flatMap((statement) => [statement.Action].flat()),
    );

    // Assess
    expect(publicRoutes).toHaveLength(publicRouteTable.length);
    for (const route of publicRoutes) expect(route.Properties.AuthorizationType ?? 'NONE').toBe('NONE');
    expect(targets).toEqual(publicRoutes.map(() => docsArn));
    expect(actions.filter((action) => /^(dynamodb|events):/.test(action))).toEqual([]);
  });

  it('logs every request as JSON and throttles the default stage', () => {
    // Prepare
    const stages = template.findResources('AWS::ApiGatewayV2::Stage') as Record<string, Resource>;
    const logGroupIds = Object.keys(template.findResources('AWS::Logs::LogGroup'));

    // Act
    const stage = Object.values(stages)[0]?.Properties ?? {};
    const accessLogs = stage.AccessLogSettings as { DestinationArn: { 'Fn::GetAtt': [string, string] }; Format: string };
    const logLine = JSON.parse(accessLogs.Format) as Record<string, string>;

    // Assess
    expect(Object.keys(stages)).toHaveLength(1);
    expect(stage).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingBurstLimit: DEFAULT_THROTTLING.burstLimit,
        ThrottlingRateLimit: DEFAULT_THROTTLING.rateLimit,
      },
    });
    expect(logGroupIds).toContain(accessLogs.DestinationArn['Fn::GetAtt'][0]);
    expect(logLine).toMatchObject({ requestId: '$context.requestId', status: '$context.status', routeKey: '$context.routeKey' });
  });

  it('outputs the API URL, the table name and the event bus name', () => {
    // Act
    const outputs = template.toJSON().Outputs as Record<string, unknown>;

    // Assess
    expect(Object.keys(outputs)).toEqual(expect.arrayContaining(['ApiUrl', 'TableName', 'EventBusName']));
  });

  it('holds every table grant of every route to the leading keys of its item families', () => {
    for (const route of routeTable) {
      // Act
      const tableStatements = policyStatementsOf(route.id).filter((statement) => asArray(statement.Action).some((action) => action.startsWith('dynamodb:')));

      // Assess
      for (const statement of tableStatements) {
        expect(statement.Condition, `${route.id}: ${JSON.stringify(statement)}`).toMatchObject({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [expect.any(String)] } });
        expect(JSON.stringify(statement.Condition)).not.toContain('"*"');
      }
    }
  });

  it('lets a route publish events only when its capabilities say so (none does: the pipeline consumer publishes)', () => {
    for (const route of routeTable) {
      // Act
      const variables = (resourceOf(functionOf(route.id).lambdaFunction).Properties.Environment as { Variables: object }).Variables;

      // Assess
      expect(actionsOf(route.id).includes('events:PutEvents'), route.id).toBe(route.capabilities.publishes);
      expect('EVENT_BUS_NAME' in variables, route.id).toBe(route.capabilities.publishes);
      expect(variables).toHaveProperty('TABLE_NAME');
    }
  });

  describe('grants exactly what a route declares', () => {
    const READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
    const READ_WRITE = [...READ, 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
    const tableArn = () => ({ 'Fn::GetAtt': [stack.getLogicalId(stack.table.node.defaultChild as never), 'Arn'] });
    const like = (pattern: string) => ({ 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [pattern] } });
    const keyCounting = () => ({ Action: 'dynamodb:UpdateItem', Effect: 'Allow', Resource: tableArn(), Condition: like('APIKEY#*') });
    const tableStatementsOf = (routeId: RouteId) =>
      policyStatementsOf(routeId)
        .filter((statement) => asArray(statement.Action).some((action) => action.startsWith('dynamodb:')))
        .map(({ Sid, Action, Effect, Resource, Condition }) => ({ ...(Sid === undefined ? {} : { Sid }), Action, Effect, Resource, Condition }));

    it('getAccount: reads the pixel head items (PIXEL#<pixelId> and nothing under it), counts on its key', () => {
      expect(tableStatementsOf('getAccount')).toEqual([
        { Sid: 'PixelHeadRead', Action: READ, Effect: 'Allow', Resource: tableArn(), Condition: { ...like('PIXEL#*'), 'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': ['PIXEL#*#*'] } } },
        keyCounting(),
      ]);
    });

    it('createDashboardView: reads and writes dashboard views and its idempotency items', () => {
      expect(tableStatementsOf('createDashboardView')).toEqual([
        { Sid: 'DashboardViewsReadWrite', Action: READ_WRITE, Effect: 'Allow', Resource: tableArn(), Condition: like('PIXEL#*#VIEWS') },
        { Sid: 'IdempotencyReadWrite', Action: READ_WRITE, Effect: 'Allow', Resource: tableArn(), Condition: like('PIXEL#*#IDEMPOTENCY') },
        keyCounting(),
      ]);
    });

    it('queryAds: reads the analytics store\'s live files (ads, hours, rates); writes nothing but its key counter', () => {
      expect(tableStatementsOf('queryAds')).toEqual([
        { Sid: 'AnalyticsPartitionsRead', Action: READ, Effect: 'Allow', Resource: tableArn(), Condition: like('PIXEL#*#PARQUET#*') },
        keyCounting(),
      ]);
    });

    it('ingestEvents: writes the ingestion log and its idempotency items', () => {
      expect(tableStatementsOf('ingestEvents')).toEqual([
        { Sid: 'IngestionLogReadWrite', Action: READ_WRITE, Effect: 'Allow', Resource: tableArn(), Condition: like('PIXEL#*#LOG') },
        { Sid: 'IdempotencyReadWrite', Action: READ_WRITE, Effect: 'Allow', Resource: tableArn(), Condition: like('PIXEL#*#IDEMPOTENCY') },
        keyCounting(),
      ]);
    });

    it('getMeasures: no table item beyond its key counter', () => {
      expect(tableStatementsOf('getMeasures')).toEqual([keyCounting()]);
    });
  });

  it('uses a wildcard resource only for X-Ray and the analytics bucket\'s objects, the wildcards the nag acknowledgements cover', () => {
    for (const route of routeTable) {
      // Act
      const wildcardActions = policyStatementsOf(route.id)
        .filter((statement) => JSON.stringify(statement.Resource).includes('*'))
        .flatMap((statement) => asArray(statement.Action));

      // Assess
      const bucketObjects = (route.capabilities as RouteCapabilities).analytics ? ['s3:GetObject'] : [];
      expect(wildcardActions.sort()).toEqual([...bucketObjects, 'xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
    }
  });

  it('takes stage throttling from the stack props', () => {
    // Prepare
    const throttling = { rateLimit: 7, burstLimit: 11 };

    // Act
    const custom = Template.fromStack(new ApiStack(newApp(), 'Throttled', { throttling }));

    // Assess
    custom.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      DefaultRouteSettings: { ThrottlingRateLimit: 7, ThrottlingBurstLimit: 11 },
    });
  });
});

describe('cdk-nag (AwsSolutions and Serverless packs)', () => {
  it('finds no unacknowledged violation, errors or warnings, in the stack', () => {
    // Prepare
    const app = withNagPacks(newApp());
    new ApiStack(app, 'MerchantAnalyticsApi');

    // Act
    const { report, error } = synthWithReport(app);

    // Assess
    expect(error).toBeUndefined();
    const packReports = report.pluginReports.filter((r) => ['AwsSolutions', 'Serverless'].includes(r.pluginName));
    expect(packReports.map((r) => r.pluginName).sort()).toEqual(['AwsSolutions', 'Serverless']);
    for (const packReport of packReports) {
      expect(packReport.violations).toEqual([]);
      expect(packReport.conclusion).toBe('success');
    }
  });

  it('acknowledges only the reviewed findings, each on a single function, role or route with a reason', () => {
    // Prepare
    const app = withNagPacks(newApp());
    new ApiStack(app, 'MerchantAnalyticsApi');

    // Act
    const suppressed = synthWithReport(app).report.pluginReports.flatMap((r) => r.suppressedViolations);

    // Assess
    expect([...new Set(suppressed.map((s) => s.acknowledgedId.replace(/<AnalyticsStoreBucket\w+\.Arn>/, '<AnalyticsStoreBucket.Arn>')))].sort()).toEqual([
      'AwsSolutions::AwsSolutions-APIG4',
      'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      'AwsSolutions::AwsSolutions-IAM5[Resource::<AnalyticsStoreBucket.Arn>/*]',
      'AwsSolutions::AwsSolutions-IAM5[Resource::<AnalyticsStoreBucket.Arn>/_compacted/*]',
      'AwsSolutions::AwsSolutions-S1',
      'AwsSolutions::AwsSolutions-SQS3',
      'Serverless::Serverless-LambdaDLQ',
      'Serverless::Serverless-SQSRedrivePolicy',
    ]);
    for (const acknowledgement of suppressed) {
      expect(acknowledgement.reason.length).toBeGreaterThan(40);
      // One function, role or route: never the app, the stack, or a whole HttpApi at once.
      // (or the pipeline's failure queue, a resource of its own.)
      // (or the pipeline's failure queue, or the analytics bucket: resources of their own.)
      if (!acknowledgement.acknowledgedAt.endsWith('/PipelineFailures')) expect(acknowledgement.acknowledgedAt.split('/').length).toBeGreaterThanOrEqual(3);
      expect(acknowledgement.acknowledgedAt).toMatch(/\/(Function|Role|PipelineFailures|AnalyticsStore\/Bucket|(GET|POST|PUT|PATCH|DELETE)--[^/]*)$/);
    }
  });

  it('fails the synth for a stack without logging, throttling, explicit memory or a current runtime', () => {
    // Prepare
    const app = withNagPacks(newApp());
    const careless = new Stack(app, 'Careless');
    const handler = new lambda.Function(careless, 'Handler', {
      runtime: lambda.Runtime.NODEJS_20_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({ statusCode: 200 })'),
    });
    new apigw.HttpApi(careless, 'Api', { defaultIntegration: new HttpLambdaIntegration('Integration', handler) });

    // Act
    const { report, error } = synthWithReport(app);

    // Assess
    expect(error?.message).toMatch(/AwsSolutions-APIG1/);
    const ruleNames = report.pluginReports.flatMap((r) => r.violations.map((v) => v.ruleName));
    expect(ruleNames).toEqual(
      expect.arrayContaining([
        'AwsSolutions-APIG1',
        'AwsSolutions-APIG4',
        'AwsSolutions-L1',
        expect.stringMatching(/^AwsSolutions-IAM4\[/),
        'Serverless-APIGWDefaultThrottling',
        'Serverless-LambdaDefaultMemorySize',
        'Serverless-LambdaDLQ',
        'Serverless-LambdaTracing',
      ]),
    );
  });

  it('still reports a route added without its own acknowledgement', () => {
    // Prepare
    const app = withNagPacks(newApp());
    const stack = new ApiStack(app, 'MerchantAnalyticsApi');
    const anyFunction = [...stack.functions.values()][0];
    if (!anyFunction) throw new Error('The route table is empty');
    stack.httpApi.addRoutes({
      path: '/unreviewed',
      methods: [apigw.HttpMethod.GET],
      integration: new HttpLambdaIntegration('Unreviewed', anyFunction.lambdaFunction),
    });

    // Act
    const { report, error } = synthWithReport(app);

    // Assess
    expect(error).toBeDefined();
    const violations = report.pluginReports.flatMap((r) => r.violations);
    expect(violations.map((v) => v.ruleName)).toEqual(['AwsSolutions-APIG4']);
    expect(violations[0]?.violatingConstructs.map((c) => c.constructPath)).toEqual([
      'MerchantAnalyticsApi/HttpApi/GET--unreviewed/Resource',
    ]);
  });
});
