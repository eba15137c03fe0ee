import { randomUUID } from 'node:crypto';
import { accountUpdatedEventId } from '../events/account-updated';
import { defaultOrderSettings, type OrderSettings, type OrderSettingsInput } from '../schemas/order-settings';
import {
  ConcurrentUpdateError,
  loadOrderSettings,
  saveOrderSettings,
} from '../store/order-settings-repository';
import { oneAtATime } from '../one-at-a-time';
import { retryUntilCommitted } from '../retry-until-committed';
import { assignIdentity } from './assign-identity';

export async function getOrderSettings(pixelId: string): Promise<OrderSettings> {
  return (await loadOrderSettings(pixelId))?.settings ?? defaultOrderSettings();
}

/**
 * Replaces a pixel's order settings and announces it (spec 4.1). Identity is assigned against the
 * version actually replaced, and the write is conditional on that version, so two concurrent PUTs
 * can never lose a filter's `createdAt`: the loser re-reads and tries again, until the request's
 * deadline, so contention alone never fails a PUT; writers in one process queue rather than race. Every attempt of this request stores the same
 * `changeId`: an attempt that finds it already stored knows an earlier attempt committed though
 * its answer was lost, and answers what that attempt stored.
 *
 * The `accountUpdated` event is part of the write: it goes into the outbox of the same conditional
 * PutItem, and the pipeline consumer publishes it (shared/pipeline), so it is emitted if and only
 * if the write committed, under an id stable across redeliveries.
 */
export async function replaceOrderSettings(command: {
  pixelId: string;
  input: OrderSettingsInput;
  apiKeyPk: string;
  requestTime: Date;
}): Promise<OrderSettings> {
  const { pixelId, input, apiKeyPk, requestTime } = command;
  const changeId = randomUUID();
  const next = await oneAtATime(`order-settings\n${pixelId}`, () =>
    retryUntilCommitted(
      async () => {
        const current = await loadOrderSettings(pixelId);
        if (current && current.changeId === changeId) return current.settings;
        const settings = assignIdentity(input, current?.settings ?? defaultOrderSettings(), requestTime);
        const event = {
          eventId: accountUpdatedEventId(pixelId, (current?.version ?? 0) + 1),
          pixelId,
          actor: `cli:${apiKeyPk}`,
          change: { kind: 'orderSettings' as const },
          occurredAt: requestTime.toISOString(),
        };
        await saveOrderSettings(pixelId, settings, current?.version, requestTime, {
          changeId,
          outbox: [...(current?.outbox ?? []), event],
          outboxRev: current?.outboxRev,
        });
        return settings;
      },
      { isConflict: (error) => error instanceof ConcurrentUpdateError },
    ),
  );
  return next;
}
