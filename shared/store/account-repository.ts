import type { AccountUpdatedDetail } from '../events/account-updated';
import { RetryableFault } from '../faults';
import { accountSchema, type Account } from '../schemas/account';
import { ACCOUNT_HEAD_SK, readSnapshotHead, writeSnapshotHead } from './outbox-heads';

/**
 * The account of a pixel: one item `PK=PIXEL#<pixelId>`, `SK=ACCOUNT` holding `account` (JSON),
 * `version` for optimistic concurrency, the `changeId` of the write that stored it, and the outbox
 * of `accountUpdated` events not yet published, exactly as the order-settings head carries its own
 * (order-settings-repository.ts: the pipeline consumer publishes and clears both).
 */
export interface VersionedAccount {
  account: Account;
  version: number;
  changeId: string | undefined;
  outbox: AccountUpdatedDetail[];
  outboxRev: number;
}

export class ConcurrentAccountUpdateError extends RetryableFault {
  constructor(pixelId: string) {
    super(`The account of pixel ${pixelId} changed while it was being updated`);
  }
}

export async function loadAccount(pixelId: string): Promise<VersionedAccount | undefined> {
  const head = await readSnapshotHead(pixelId, ACCOUNT_HEAD_SK, 'account');
  if (!head) return undefined;
  const { version, changeId, outbox, outboxRev } = head.state;
  return { account: accountSchema.parse(head.payload), version, changeId, outbox, outboxRev };
}

/**
 * Stores `account` as the next version after `expectedVersion` (undefined: none stored yet), with
 * the outbox it must carry, in one conditional PutItem. Throws ConcurrentAccountUpdateError when
 * another write got there first; the caller re-reads and retries.
 */
export function saveAccount(
  pixelId: string,
  account: Account,
  expectedVersion: number | undefined,
  updatedAt: Date,
  write: { changeId?: string; outbox?: readonly AccountUpdatedDetail[]; outboxRev?: number } = {},
): Promise<number> {
  return writeSnapshotHead(
    { pixelId, headSk: ACCOUNT_HEAD_SK, payloadAttribute: 'account', payload: account, what: 'The account' },
    expectedVersion,
    updatedAt,
    write,
    () => new ConcurrentAccountUpdateError(pixelId),
  );
}
