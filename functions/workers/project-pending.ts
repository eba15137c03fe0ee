import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { metrics } from '../../shared/config/metrics';
import { startTracing } from '../../shared/config/tracing';
import { PENDING_RETRY, consumePending } from '../../shared/pipeline/consumer';
import { runNotedCompactions } from '../../shared/analytics/store/compaction-runner';

/**
 * The pipeline consumer, deployed: invoked by the table's stream with the NEW_IMAGE of items that
 * entered the pending index or changed in it (the event source mapping filters on it). The same
 * consumer the local drain runs.
 *
 * An item that fails has its failure recorded on it, a MODIFY of a pending item: the stream
 * delivers it again in a later batch, and that delivery is the retry (at once: a function cannot
 * hold one record back without holding back every record behind it in its stream shard). Its
 * `maxAttempts`-th failure parks it, which takes it out of the stream's filter. Either way the
 * batch succeeds and the records behind it go on. Only items whose failure could not be recorded
 * (the store refuses the write) are reported as batch item failures, at the earliest one: Lambda
 * retries from there (later records too, which is harmless: every step is idempotent), bisecting,
 * and past the retry limit sends the batch's description to the on-failure queue.
 *
 * Once the batch is projected, the analytics store's dates its appends left due are compacted
 * (compaction-runner.ts), within the invocation's time less a margin: the batch's entries are
 * already projected, and a compaction's failure is logged and never fails the batch.
 */
const STREAM_RETRY = { ...PENDING_RETRY, backoffMs: () => 0 };

/** What an invocation keeps back from compaction for its own answer. */
const COMPACTION_MARGIN_MS = 1_000;

export async function handler(event: DynamoDBStreamEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<DynamoDBBatchResponse> {
  const deadline = Date.now() + (context?.getRemainingTimeInMillis() ?? 0) - COMPACTION_MARGIN_MS;
  await startTracing();
  const byItem = new Map<Record<string, unknown>, DynamoDBRecord>();
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (image) byItem.set(unmarshall(image as Record<string, AttributeValue>), record);
  }
  const { retrying, parked, failed, projectedEvents, maxLagMs } = await consumePending([...byItem.keys()], { retry: STREAM_RETRY });
  // The pipeline's own metrics (README "Logs and metrics"); the stream's IteratorAge is Lambda's.
  metrics.addMetric('EventsProjected', MetricUnit.Count, projectedEvents);
  metrics.addMetric('ProjectionLag', MetricUnit.Milliseconds, maxLagMs);
  metrics.addMetric('ProjectionFailures', MetricUnit.Count, retrying.length + parked.length + failed.length);
  metrics.addMetric('EntriesParked', MetricUnit.Count, parked.length);
  const { compactions, failures } = await runNotedCompactions({ deadline });
  const compacted = compactions.filter((report) => report.outcome === 'compacted');
  if (compacted.length > 0) metrics.addMetric('FilesCompacted', MetricUnit.Count, compacted.reduce((sum, report) => sum + report.filesIn, 0));
  if (failures > 0) metrics.addMetric('CompactionFailures', MetricUnit.Count, failures);
  metrics.publishStoredMetrics();
  const sequenceNumbers = failed
    .map((item) => byItem.get(item)?.dynamodb?.SequenceNumber)
    .filter((sequence): sequence is string => sequence !== undefined)
    .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  return { batchItemFailures: sequenceNumbers.length > 0 ? [{ itemIdentifier: sequenceNumbers[0]! }] : [] };
}
