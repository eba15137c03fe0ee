import { randomUUID } from 'node:crypto';
import { accountUpdatedEventId } from '../events/account-updated';
import { defaultAccount, type Account, type AccountPatch } from '../schemas/account';
import { ConcurrentAccountUpdateError, loadAccount, saveAccount } from '../store/account-repository';
import { oneAtATime } from '../one-at-a-time';
import { retryUntilCommitted } from '../retry-until-committed';
import { canonicalTimeZone } from '../time/zoned-time';

export async function getAccount(pixelId: string): Promise<Account> {
  return (await loadAccount(pixelId))?.account ?? defaultAccount();
}

/**
 * The pixel's reporting time zone, by the runtime's canonical name (as request zones are): the
 * zone whose daily ad rollups are kept besides UTC.
 */
export async function reportingTimeZone(pixelId: string): Promise<string> {
  return canonicalTimeZone((await getAccount(pixelId)).timezone) ?? 'UTC';
}

/**
 * Applies a PATCH: the members given replace the stored ones. Written like the order settings:
 * conditional on the version read, retried on a conflict (writers in one process queue), the
 * `changeId` telling a retried attempt that an earlier one already committed, and `accountUpdated`
 * (`change.kind: "account"`) in the outbox of the same write. A patch that changes nothing is not
 * a change: nothing is written and no event is sent.
 */
export async function updateAccount(command: { pixelId: string; patch: AccountPatch; apiKeyPk: string; requestTime: Date }): Promise<Account> {
  const { pixelId, patch, apiKeyPk, requestTime } = command;
  const changeId = randomUUID();
  return oneAtATime(`account\n${pixelId}`, () =>
    retryUntilCommitted(
      async () => {
        const current = await loadAccount(pixelId);
        if (current && current.changeId === changeId) return current.account;
        const before = current?.account ?? defaultAccount();
        const next: Account = { ...before, ...patch };
        if (next.name === before.name && next.timezone === before.timezone && next.currency === before.currency) return before;
        const version = (current?.version ?? 0) + 1;
        const event = {
          eventId: accountUpdatedEventId(pixelId, version, 'account'),
          pixelId,
          actor: `cli:${apiKeyPk}`,
          change: { kind: 'account' as const },
          occurredAt: requestTime.toISOString(),
        };
        await saveAccount(pixelId, next, current?.version, requestTime, {
          changeId,
          outbox: [...(current?.outbox ?? []), event],
          outboxRev: current?.outboxRev,
        });
        return next;
      },
      { isConflict: (error) => error instanceof ConcurrentAccountUpdateError },
    ),
  );
}
