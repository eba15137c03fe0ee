import type { AccountUpdatedDetail } from '../events/account-updated';
import { RetryableFault } from '../faults';
import { costSettingsInputSchema, type CostSettings } from '../schemas/cost-settings';
import { COST_SETTINGS_HEAD_SK, readSnapshotHead, writeSnapshotHead } from './outbox-heads';

/**
 * Cost settings are one small snapshot per pixel (`PIXEL#<pixelId>` / `COST_SETTINGS`), versioned
 * for optimistic concurrency, with the same outbox as the order settings: the `accountUpdated`
 * event of a write travels in the write's own conditional PutItem and the pipeline consumer
 * publishes it (bounded: 50 gateways fit one item many times over, so no chunks are needed).
 */
export const COST_SETTINGS_SK = COST_SETTINGS_HEAD_SK;

export interface VersionedCostSettings {
  settings: CostSettings;
  version: number;
  changeId: string | undefined;
  updatedAt: string;
  outbox: AccountUpdatedDetail[];
  outboxRev: number;
}

export class ConcurrentCostSettingsUpdateError extends RetryableFault {
  constructor(pixelId: string) {
    super(`Cost settings of pixel ${pixelId} changed while they were being replaced`);
  }
}


export async function loadCostSettings(pixelId: string): Promise<VersionedCostSettings | undefined> {
  const head = await readSnapshotHead(pixelId, COST_SETTINGS_SK, 'settings');
  if (!head) return undefined;
  const { version, changeId, updatedAt, outbox, outboxRev } = head.state;
  // Parsed with the input schema: a corrupt item fails loudly rather than costing orders wrongly.
  return { settings: costSettingsInputSchema.parse(head.payload), version, changeId, updatedAt: updatedAt as string, outbox, outboxRev };
}

/**
 * Stores `settings` as the version after `expectedVersion` (undefined: nothing stored yet), with
 * the events this write causes plus those still pending; throws ConcurrentCostSettingsUpdateError
 * when another write got there first.
 */
export function saveCostSettings(
  pixelId: string,
  settings: CostSettings,
  expectedVersion: number | undefined,
  updatedAt: Date,
  write: { changeId?: string; outbox?: readonly AccountUpdatedDetail[]; outboxRev?: number } = {},
): Promise<number> {
  return writeSnapshotHead(
    { pixelId, headSk: COST_SETTINGS_SK, payloadAttribute: 'settings', payload: settings, what: 'Cost settings' },
    expectedVersion,
    updatedAt,
    write,
    () => new ConcurrentCostSettingsUpdateError(pixelId),
  );
}
