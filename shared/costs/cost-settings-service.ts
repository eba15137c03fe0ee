import { commitSettingsChange } from '../commit-settings-change';
import { defaultCostSettings, type CostSettings } from '../schemas/cost-settings';
import { ConcurrentCostSettingsUpdateError, loadCostSettings, saveCostSettings } from '../store/cost-settings-repository';

export async function getCostSettings(pixelId: string): Promise<CostSettings> {
  return (await loadCostSettings(pixelId))?.settings ?? defaultCostSettings();
}

/**
 * Replaces a pixel's cost settings and announces it (`change.kind: "costSettings"`, id
 * `<pixelId>:costSettings:<version>`), as commitSettingsChange does: the event is published if and
 * only if the write committed, and an attempt whose answer was lost is recognised rather than
 * applied twice.
 */
export async function replaceCostSettings(command: { pixelId: string; input: CostSettings; apiKeyPk: string; requestTime: Date }): Promise<CostSettings> {
  return commitSettingsChange({
    ...command,
    kind: 'costSettings',
    load: loadCostSettings,
    valueOf: (read) => read.settings,
    // A replacement is a change even when equal: every PUT is announced, as the order settings' are.
    next: () => ({ value: command.input, changed: true }),
    save: saveCostSettings,
    isConflict: (error) => error instanceof ConcurrentCostSettingsUpdateError,
  });
}
