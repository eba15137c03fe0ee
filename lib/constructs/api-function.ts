import { fileURLToPath } from 'node:url';
import { CfnResource, Duration, Lazy, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as events from 'aws-cdk-lib/aws-events';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../shared/config/metrics-namespace';
import { ITEM_KINDS, type ItemKind } from '../../shared/store/table-design';
import { BUNDLING } from '../bundling';
import { FUNCTION_DEFAULTS, functionNodeOptions, type FunctionHeap } from '../function-defaults';
import { acknowledgeStreamFailureDestination, acknowledgeSynchronousInvocation, acknowledgeTracingWildcard } from '../nag-acknowledgements';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type TableAccess = 'read' | 'readWrite';

/**
 * Handlers address items by key (GetItem, Query, and the batch forms the order-settings chunks
 * use). An item family read through an index (ITEM_KINDS `index`) is granted on that index by
 * name, never `index/*`. Scan is never granted: it has no leading key to hold to a condition.
 */
const READ_ACTIONS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const TABLE_ACTIONS: Record<TableAccess, readonly string[]> = {
  read: READ_ACTIONS,
  readWrite: [...READ_ACTIONS, ...WRITE_ACTIONS],
};

export interface ApiFunctionProps {
  /** The handler module, relative to the project root, exporting `handler` (a route table row's `handler`). */
  readonly entry: string;
  /** Shown on every log line by the Powertools logger, so one service's logs can be told apart. */
  readonly serviceName: string;
  readonly description?: string;
  /** @default 1 month: long enough to investigate an incident, short enough not to hoard request data. */
  readonly logRetention?: logs.RetentionDays;
  /**
   * Who invokes it: API Gateway (synchronously, a route) or an event source mapping (a worker,
   * whose failures go to the mapping's on-failure destination).
   * @default 'apiGateway'
   */
  readonly invokedBy?: 'apiGateway' | 'eventSourceMapping';
  /** Files shipped next to the bundle: `from` relative to the project root, `to` a file name. */
  readonly assets?: ReadonlyArray<{ from: string; to: string }>;
  /** V8 heap sizes for this function (lib/function-defaults.ts); V8's and Lambda's defaults otherwise. */
  readonly heap?: FunctionHeap;
  /**
   * The function runs the analytics engine (DuckDB, a native module): its packages are shipped
   * beside the bundle instead of in it, and the function runs on x86_64, the architecture of the
   * binding `npm ci` installs on the build machine, so what ships is what the tests ran.
   */
  readonly analyticsEngine?: boolean;
}

/** The packages of the analytics engine, copied from the project's node_modules next to the bundle. */
export const ANALYTICS_ENGINE_PACKAGES = ['@duckdb/node-api', '@duckdb/node-bindings', '@duckdb/node-bindings-linux-x64', 'detect-libc'] as const;

/**
 * A function behind one API route (or a worker of the pipeline). Everything that must be the same for every endpoint lives
 * here, so a new route table row gets it without thought: the runtime, arm64, explicit memory and
 * timeout, tracing, the shared bundling settings, and a log group the stack owns.
 *
 * The role is built here rather than left to CDK, because CDK's default role carries the
 * AWS-managed AWSLambdaBasicExecutionRole, which may write to any log group in the account; this
 * one may write to its own log group only.
 */
export class ApiFunction extends Construct {
  readonly lambdaFunction: nodejs.NodejsFunction;
  readonly logGroup: logs.LogGroup;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);

    // An explicit group (not the `logRetention` prop) keeps CDK's log-retention custom-resource
    // Lambda out of the stack. Retained so that replacing or deleting a function keeps the logs
    // an investigation of it would need; the retention still expires them.
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.entry}`,
    });
    this.logGroup.grantWrite(this.role);

    this.lambdaFunction = new nodejs.NodejsFunction(this, 'Function', {
      entry: `${PROJECT_ROOT}${props.entry}`,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      ...(props.description === undefined ? {} : { description: props.description }),
      // The newest Node runtime this aws-cdk-lib knows; cdk-nag L1 fails on anything older.
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: props.analyticsEngine ? lambda.Architecture.X86_64 : lambda.Architecture.ARM_64,
      memorySize: FUNCTION_DEFAULTS.memoryMiB,
      timeout: Duration.seconds(FUNCTION_DEFAULTS.timeoutSeconds),
      tracing: lambda.Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      environment: {
        POWERTOOLS_SERVICE_NAME: props.serviceName,
        POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
        NODE_OPTIONS: functionNodeOptions(props.heap),
      },
      bundling: {
        format: BUNDLING.format === 'cjs' ? nodejs.OutputFormat.CJS : nodejs.OutputFormat.ESM,
        target: BUNDLING.target,
        minify: BUNDLING.minify,
        sourceMap: BUNDLING.sourcemap,
        sourcesContent: BUNDLING.sourcesContent,
        mainFields: [...BUNDLING.mainFields],
        // Explicitly set: left unset, NodejsFunction externalises @aws-sdk/* and the runtime's SDK
        // would run instead of the version the tests pinned. Only the analytics engine is external.
        externalModules: [...BUNDLING.external],
        ...(props.assets?.length || props.analyticsEngine
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (inputDir: string, outputDir: string) => [
                  ...(props.assets ?? []).map((asset) => `cp "${inputDir}/${asset.from}" "${outputDir}/${asset.to}"`),
                  ...(props.analyticsEngine
                    ? ANALYTICS_ENGINE_PACKAGES.map((name) => `mkdir -p "${outputDir}/node_modules/${name}" && cp -R "${inputDir}/node_modules/${name}/." "${outputDir}/node_modules/${name}/"`)
                    : []),
                ],
              },
            }
          : {}),
      },
    });

    if ((props.invokedBy ?? 'apiGateway') === 'apiGateway') acknowledgeSynchronousInvocation(this.lambdaFunction);
    else acknowledgeStreamFailureDestination(this.lambdaFunction);
    acknowledgeTracingWildcard(this.role);

    // CDK makes a function depend on its role although `Role` already references it, a redundant
    // DependsOn that cfn-lint reports (W3005). Only the dependency on the role's policy carries
    // meaning (the function must not run before its grants exist), so it is the one kept.
    const cfnFunction = this.lambdaFunction.node.defaultChild as lambda.CfnFunction;
    cfnFunction.addOverride(
      'DependsOn',
      Lazy.list({
        produce: () => {
          const policy = this.role.node.tryFindChild('DefaultPolicy')?.node.defaultChild as CfnResource | undefined;
          return policy ? [Stack.of(this).getLogicalId(policy)] : [];
        },
      }),
    );
  }

  /** Lets the function use the service table and tells it the table's name (TABLE_NAME). */
  bindTable(table: dynamodb.ITableV2, access: TableAccess): this {
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: [...TABLE_ACTIONS[access]], resources: [table.tableArn] }),
    );
    this.lambdaFunction.addEnvironment('TABLE_NAME', table.tableName);
    return this;
  }

  /**
   * Lets the function use some item families of the service table, one statement per family, each
   * held by `dynamodb:LeadingKeys` to the family's partition-key pattern (ITEM_KINDS), and tells it
   * the table's name (TABLE_NAME). A family in `writes` may also be read.
   */
  bindTableItems(table: dynamodb.ITableV2, items: { reads: readonly ItemKind[]; writes: readonly ItemKind[] }): this {
    const granted = new Map<ItemKind, TableAccess>();
    for (const kind of items.reads) granted.set(kind, 'read');
    for (const kind of items.writes) granted.set(kind, 'readWrite');
    for (const [kind, access] of granted) this.role.addToPrincipalPolicy(itemKindStatement(table, kind, access));
    this.lambdaFunction.addEnvironment('TABLE_NAME', table.tableName);
    return this;
  }

  /**
   * Lets the function count requests against API keys' quotas: authentication reads the key with
   * an UpdateItem that adds to its counter (shared/auth/rate-limit.ts). Only key items, whose
   * partition keys start `APIKEY#`: a read-only route gets no other write.
   */
  allowKeyQuotaCounting(table: dynamodb.ITableV2): this {
    this.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:UpdateItem'],
        resources: [table.tableArn],
        conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['APIKEY#*'] } },
      }),
    );
    return this;
  }

  /** Lets the function publish domain events to the bus and tells it the bus's name (EVENT_BUS_NAME). */
  bindEventBus(bus: events.IEventBus): this {
    bus.grantPutEventsTo(this.role);
    this.lambdaFunction.addEnvironment('EVENT_BUS_NAME', bus.eventBusName);
    return this;
  }
}

/** One item family's grant: its actions, on the table (or the index it is read through), held to its leading keys. */
export function itemKindStatement(table: dynamodb.ITableV2, kind: ItemKind, access: TableAccess): iam.PolicyStatement {
  const spec: { pattern: string; notLike?: string; index?: string } = ITEM_KINDS[kind];
  return new iam.PolicyStatement({
    sid: `${kind.charAt(0).toUpperCase()}${kind.slice(1)}${access === 'read' ? 'Read' : 'ReadWrite'}`,
    actions: spec.index === undefined ? [...TABLE_ACTIONS[access]] : ['dynamodb:Query'],
    resources: [spec.index === undefined ? table.tableArn : `${table.tableArn}/index/${spec.index}`],
    conditions: {
      'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [spec.pattern] },
      ...(spec.notLike === undefined ? {} : { 'ForAllValues:StringNotLike': { 'dynamodb:LeadingKeys': [spec.notLike] } }),
    },
  });
}
