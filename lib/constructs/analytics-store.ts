import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as glue from 'aws-cdk-lib/aws-glue';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { ADS_TABLE, AD_HOURS_TABLE, allBuckets, EVENTS_TABLE, FX_RATES_TABLE, GLUE_TYPES, ORDERS_TABLE, SKU_COSTS_TABLE, type TableDefinition } from '../../shared/analytics/store/tables';
import type { ApiFunction } from './api-function';

/**
 * The analytics store deployed: the bucket of Parquet files (`<table>/pixel=<id>/date=<day>/…`)
 * and a Glue database describing the same layout, so a data team queries it with Athena or Spark
 * as it is. Which files are live is recorded in the service table (analytics/store/partitions.ts);
 * Athena reads every file under a partition, so the Glue tables are for reading through the same
 * rules the service applies (the README says which).
 */
export class AnalyticsStore extends Construct {
  readonly bucket: s3.Bucket;
  readonly database: glue.CfnDatabase;

  constructor(scope: Construct, id: string, props: { serviceName: string }) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      // Merchants' facts: a stack deletion must not take them.
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        // A write cut short leaves parts nobody will complete.
        { id: 'AbortIncompleteUploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Files compaction has replaced are tagged, then kept a day for readers that still hold them.
        { id: 'ExpireCompactedFiles', tagFilters: { compacted: 'true' }, expiration: Duration.days(1) },
      ],
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions::AwsSolutions-S1',
      reason:
        'Only the service\u2019s own functions write or read this bucket, through roles limited to it; their every request is logged with its route and request id, and CloudTrail data events can be enabled per deployment when object-level auditing is required.',
    });

    const account = Stack.of(this).account;
    this.database = new glue.CfnDatabase(this, 'Database', {
      catalogId: account,
      databaseInput: { name: `${props.serviceName.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_analytics`, description: `The analytics store of ${props.serviceName}: Parquet files per pixel and UTC date` },
    });
    for (const table of [EVENTS_TABLE, ORDERS_TABLE, ADS_TABLE, AD_HOURS_TABLE, FX_RATES_TABLE, SKU_COSTS_TABLE]) this.describe(table);
  }

  /**
   * A Glue table over one table's files, its partitions (pixel, and date or bucket) projected from
   * the key layout rather than crawled.
   */
  private describe(table: TableDefinition): glue.CfnTable {
    const location = `s3://${this.bucket.bucketName}/${table.name}/`;
    const logicalName = table.name.split('_').map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');
    const glueTable = new glue.CfnTable(this, `${logicalName}Table`, {
      catalogId: Stack.of(this).account,
      databaseName: this.database.ref,
      tableInput: {
        name: table.name,
        description: table.description,
        tableType: 'EXTERNAL_TABLE',
        partitionKeys: [{ name: 'pixel', type: 'string', comment: 'The pixel id' }, table.buckets ? { name: 'bucket', type: 'string', comment: 'A hash of the row\'s key, 00-' + allBuckets(table).at(-1) } : { name: 'date', type: 'string', comment: 'The UTC date, YYYY-MM-DD' }],
        parameters: {
          classification: 'parquet',
          'projection.enabled': 'true',
          // Pixels are named in each query (`WHERE pixel = '…'`): one pixel's data at a time.
          'projection.pixel.type': 'injected',
          ...(table.buckets
            ? { 'projection.bucket.type': 'enum', 'projection.bucket.values': allBuckets(table).join(','), 'storage.location.template': `${location}pixel=\${pixel}/bucket=\${bucket}/` }
            : {
                'projection.date.type': 'date',
                'projection.date.format': 'yyyy-MM-dd',
                'projection.date.range': '2020-01-01,NOW',
                'storage.location.template': `${location}pixel=\${pixel}/date=\${date}/`,
              }),
        },
        storageDescriptor: {
          location,
          columns: table.columns.map((column) => ({ name: column.name, type: GLUE_TYPES[column.type], comment: column.description })),
          inputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat',
          outputFormat: 'org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat',
          serdeInfo: { serializationLibrary: 'org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe' },
        },
      },
    });
    glueTable.addDependency(this.database);
    return glueTable;
  }

  /**
   * Lets a function read (or also write) the store's files and tells it the bucket's name
   * (ANALYTICS_BUCKET). Objects are named per pixel and day at run time, so the grant is the
   * bucket's objects; reads list the bucket. Writers also compact: they tag the files compaction
   * replaced (the lifecycle rule expires them) and delete only the sweep's hints under
   * `_compacted/`, never a table file.
   */
  bind(fn: ApiFunction, access: 'read' | 'write'): void {
    fn.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: access === 'read' ? 'AnalyticsStoreRead' : 'AnalyticsStoreReadWrite',
        actions: access === 'read' ? ['s3:GetObject'] : ['s3:GetObject', 's3:PutObject', 's3:PutObjectTagging'],
        resources: [this.bucket.arnForObjects('*')],
      }),
    );
    if (access === 'write') {
      fn.role.addToPrincipalPolicy(
        new iam.PolicyStatement({ sid: 'AnalyticsStoreCompactionHints', actions: ['s3:DeleteObject'], resources: [this.bucket.arnForObjects('_compacted/*')] }),
      );
      Validations.of(fn.role).acknowledge({
        id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/_compacted/*]`,
        reason: 'Compaction leaves a hint per pixel, table and day it may still have files to remove (`_compacted/<table>/<pixel>/<day>.json`), named at run time; the sweep deletes them, and nothing else.',
      });
    }
    fn.role.addToPrincipalPolicy(new iam.PolicyStatement({ sid: 'AnalyticsStoreList', actions: ['s3:ListBucket'], resources: [this.bucket.bucketArn] }));
    fn.lambdaFunction.addEnvironment('ANALYTICS_BUCKET', this.bucket.bucketName);
    Validations.of(fn.role).acknowledge({
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::<${Stack.of(this).getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket)}.Arn>/*]`,
      reason: 'The analytics store names its objects by pixel, table and day at run time (`<table>/pixel=<id>/date=<day>/<file>.parquet`); the grant is the one bucket\u2019s objects, with no delete.',
    });
  }
}
