import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { requiredEnv } from '../config/env';
import { traced } from '../config/tracing';
import { RetryableFault } from '../faults';
import { ACCOUNT_UPDATED, type AccountUpdatedDetail } from './account-updated';

/** The `source` of every event this service publishes; subscribers match rules on it. */
export const EVENT_SOURCE = 'merchant-analytics.accounts';

// Built on first publish, not at module load; traced deployed (config/tracing.ts).
let eventBridge: EventBridgeClient | undefined;

export class EventPublishError extends RetryableFault {}

/**
 * Publishes one domain event. EventBridge reports per-entry failures with HTTP 200 and
 * `FailedEntryCount > 0`; that is a failure here, never ignored, so the caller can answer 5xx
 * and the client's retry publishes again.
 */
export async function publishAccountUpdated(detail: AccountUpdatedDetail): Promise<void> {
  const result = await (eventBridge ??= traced(new EventBridgeClient({}))).send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: requiredEnv('EVENT_BUS_NAME'),
          Source: EVENT_SOURCE,
          DetailType: ACCOUNT_UPDATED,
          Detail: JSON.stringify(detail),
          Time: new Date(detail.occurredAt),
        },
      ],
    }),
  );
  if ((result.FailedEntryCount ?? 0) > 0) {
    const entry = result.Entries?.find((e) => e.ErrorCode);
    throw new EventPublishError(`EventBridge rejected the ${ACCOUNT_UPDATED} event: ${entry?.ErrorCode ?? 'unknown'} ${entry?.ErrorMessage ?? ''}`.trim());
  }
}
