import { randomUUID } from 'node:crypto';
import { accountUpdatedEventId } from '../events/account-updated';
import { oneAtATime } from '../one-at-a-time';
import { retryUntilCommitted } from '../retry-until-committed';
import { defaultCostSettings, type CostSettings } from '../schemas/cost-settings';
import { ConcurrentCostSettingsUpdateError, loadCostSettings, saveCostSettings } from '../store/cost-settings-repository';

export async function getCostSettings(pixelId: string): Promise<CostSettings> {
  return (await loadCostSettings(pixelId))?.settings ?? defaultCostSettings();
}

/**
 * Replaces a pixel's cost settings and announces it, as the order settings do: the write is
 * conditional on the version read; the `accountUpdated` event (`change.kind: "costSettings"`, id
 * `<pixelId>:costSettings:<version>`) goes into the outbox of the same write, so it is published
 * if and only if the write committed; every attempt stores the same `changeId`, so an attempt
 * whose answer was lost is recognised rather than applied twice.
 */
export async function replaceCostSettings(command: { pixelId: string; input: CostSettings; apiKeyPk: string; requestTime: Date }): Promise<CostSettings> {
  const { pixelId, input, apiKeyPk, requestTime } = command;
  const changeId = randomUUID();
  return oneAtATime(`cost-settings\n${pixelId}`, () =>
    retryUntilCommitted(
      async () => {
        const current = await loadCostSettings(pixelId);
        if (current && current.changeId === changeId) return current.settings;
        const version = (current?.version ?? 0) + 1;
        const event = {
          eventId: accountUpdatedEventId(pixelId, version, 'costSettings'),
          pixelId,
          actor: `cli:${apiKeyPk}`,
          change: { kind: 'costSettings' as const },
          occurredAt: requestTime.toISOString(),
        };
        await saveCostSettings(pixelId, input, current?.version, requestTime, {
          changeId,
          outbox: [...(current?.outbox ?? []), event],
          outboxRev: current?.outboxRev,
        });
        return input;
      },
      { isConflict: (error) => error instanceof ConcurrentCostSettingsUpdateError },
    ),
  );
}
