import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { metrics } from '../../shared/config/metrics';
import { startTracing } from '../../shared/config/tracing';
import { consumePending } from '../../shared/pipeline/consumer';

/**
 * The pipeline consumer, deployed: invoked by the table's stream with the NEW_IMAGE of items that
 * entered the pending index (the event source mapping filters on it). The same consumer the
 * local drain runs. A failed pixel group is reported as a batch item failure at its first record:
 * Lambda retries from there (later records too, which is harmless: every step is idempotent) and,
 * past the retry limit, sends the batch's description to the on-failure queue.
 */
export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  await startTracing();
  const byItem = new Map<Record<string, unknown>, DynamoDBRecord>();
  for (const record of event.Records) {
    const image = record.dynamodb?.NewImage;
    if (image) byItem.set(unmarshall(image as Record<string, AttributeValue>), record);
  }
  const { failed, projectedEvents, maxLagMs } = await consumePending([...byItem.keys()]);
  // The pipeline's own metrics (README "Logs and metrics"); the stream's IteratorAge is Lambda's.
  metrics.addMetric('EventsProjected', MetricUnit.Count, projectedEvents);
  metrics.addMetric('ProjectionLag', MetricUnit.Milliseconds, maxLagMs);
  metrics.addMetric('ProjectionFailures', MetricUnit.Count, failed.length);
  metrics.publishStoredMetrics();
  const sequenceNumbers = failed
    .map((item) => byItem.get(item)?.dynamodb?.SequenceNumber)
    .filter((sequence): sequence is string => sequence !== undefined)
    .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
  return { batchItemFailures: sequenceNumbers.length > 0 ? [{ itemIdentifier: sequenceNumbers[0]! }] : [] };
}
