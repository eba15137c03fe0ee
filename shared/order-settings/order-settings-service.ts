import { accountUpdatedEventId } from '../events/account-updated';
import { defaultOrderSettings, type OrderSettings, type OrderSettingsInput } from '../schemas/order-settings';
import {
  ConcurrentUpdateError,
  loadOrderSettings,
  saveOrderSettings,
} from '../store/order-settings-repository';
import { retryOnConflict } from '../retry-on-conflict';
import { assignIdentity } from './assign-identity';

const MAX_ATTEMPTS = 8;

export async function getOrderSettings(pixelId: string): Promise<OrderSettings> {
  return (await loadOrderSettings(pixelId))?.settings ?? defaultOrderSettings();
}

/**
 * Replaces a pixel's order settings and announces it (spec 4.1). Identity is assigned against the
 * version actually replaced, and the write is conditional on that version, so two concurrent PUTs
 * can never lose a filter's `createdAt`: the loser re-reads and tries again.
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
  const next = await retryOnConflict(
    async () => {
      const current = await loadOrderSettings(pixelId);
      const settings = assignIdentity(input, current?.settings ?? defaultOrderSettings(), requestTime);
      const event = {
        eventId: accountUpdatedEventId(pixelId, (current?.version ?? 0) + 1),
        pixelId,
        actor: `cli:${apiKeyPk}`,
        change: { kind: 'orderSettings' as const },
        occurredAt: requestTime.toISOString(),
      };
      await saveOrderSettings(pixelId, settings, current?.version, requestTime, [...(current?.outbox ?? []), event], current?.outboxRev);
      return settings;
    },
    { isConflict: (error) => error instanceof ConcurrentUpdateError, maxAttempts: MAX_ATTEMPTS },
  );
  return next;
}
