import { publishAccountUpdated } from '../events/event-publisher';
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
 * The event is published after the commit. If publishing fails the request fails with a retryable
 * fault: the PUT is idempotent, so the client's retry stores the same settings and publishes again.
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
      await saveOrderSettings(pixelId, settings, current?.version, requestTime);
      return settings;
    },
    { isConflict: (error) => error instanceof ConcurrentUpdateError, maxAttempts: MAX_ATTEMPTS },
  );
  await publishAccountUpdated({
    pixelId,
    actor: `cli:${apiKeyPk}`,
    change: { kind: 'orderSettings' },
    occurredAt: requestTime.toISOString(),
  });
  return next;
}
