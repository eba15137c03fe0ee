/**
 * `npm run compact -- --pixel <id> [--analytics-table <name>] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--tiered] [--table <name> --bucket <name>]`:
 * compacts a pixel's dates of the analytics store, each into one file (whole; `--tiered`: only
 * the small files, as the consumer does), then sweeps the files replaced more than the grace ago.
 * The consumer compacts on its own; this is for a pixel that was imported or backfilled, or after
 * a change to a table's compaction. Safe to run at any time, beside the consumer, as often as
 * needed. Exit code 0: done; 1: the store failed (running it again is safe); 2: usage error.
 */
import { parseArgs } from 'node:util';
import { isWellFormedPixelId } from '../shared/auth/api-key-secret';
import { connectStore } from '../lib/local/store-connection';
import { ANALYTICS_TABLES } from '../shared/analytics/store/tables';

const usage = `Usage:
  npm run compact -- --pixel <id> [--analytics-table <name>] [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--tiered] [--table <name> --bucket <name>]
Merges each date's files of the pixel's analytics tables (all, or the one named) into one file,
then removes files replaced more than the grace ago (of every pixel). --table and --bucket name a deployed
DynamoDB table and analytics bucket (stack outputs TableName and AnalyticsBucketName).`;
const fail = (message: string, code = 2): never => {
  console.error(message ? `${message}\n\n${usage}` : usage);
  process.exit(code);
};

let values: { pixel?: string; 'analytics-table'?: string; from?: string; to?: string; tiered?: boolean; table?: string; bucket?: string; help?: boolean } = {};
try {
  ({ values } = parseArgs({
    options: {
      pixel: { type: 'string' },
      'analytics-table': { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      tiered: { type: 'boolean', default: false },
      table: { type: 'string' },
      bucket: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  }));
} catch (error) {
  fail((error as Error).message);
}
if (values.help) fail('', 0);
if (!values.pixel) fail('--pixel is required');
const pixelId = values.pixel!;
if (!isWellFormedPixelId(pixelId)) fail(`'${pixelId}' is not a valid pixel id`);
for (const name of ['from', 'to'] as const) if (values[name] !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(values[name]!)) fail(`--${name} must be a date YYYY-MM-DD`);
if (values.table && !values.bucket) fail('--table needs --bucket: the deployed analytics bucket');
const tables = values['analytics-table'] ? ANALYTICS_TABLES.filter((table) => table.name === values['analytics-table']) : ANALYTICS_TABLES;
if (tables.length === 0) fail(`No analytics table is named '${values['analytics-table']}'; there are: ${ANALYTICS_TABLES.map((table) => table.name).join(', ')}`);

const store = await connectStore({ table: values.table });
if (values.bucket) process.env.ANALYTICS_BUCKET = values.bucket;
try {
  // Loaded once the store is connected: the modules build their clients from the environment.
  const { compactPartition, sweepReplacedFiles } = await import('../shared/analytics/store/compaction');
  const { partitionDates } = await import('../shared/analytics/store/partitions');
  let merged = 0;
  for (const table of tables) {
    const dates = (await partitionDates(pixelId, table.name)).filter((date) => (!values.from || date >= values.from) && (!values.to || date <= values.to));
    for (const date of dates) {
      const report = await compactPartition(table, pixelId, date, { mode: values.tiered ? 'tiered' : 'whole' });
      if (report.outcome === 'nothing') continue;
      if (report.outcome === 'compacted') merged += report.filesIn;
      console.log(`${table.name} ${date}: ${report.outcome}${report.outcome === 'compacted' ? `, ${report.filesIn} files (${report.bytesIn.toLocaleString('en-US')} B) into one of ${report.rows.toLocaleString('en-US')} rows (${report.bytesOut.toLocaleString('en-US')} B)` : ''}`);
    }
  }
  const swept = await sweepReplacedFiles();
  console.log(`Merged ${merged.toLocaleString('en-US')} files of pixel ${pixelId} (${store.description}); removed ${swept.removed.toLocaleString('en-US')} replaced files, ${swept.pending} dates still in their grace or busy`);
} catch (error) {
  console.error(`Compaction stopped (${store.description}): ${(error as Error).message}\nRunning it again is safe.`);
  process.exitCode = 1;
} finally {
  await store.close();
}
