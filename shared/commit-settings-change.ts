import { randomUUID } from 'node:crypto';
import { accountUpdatedEventId, type AccountUpdatedDetail } from './events/account-updated';
import { oneAtATime } from './one-at-a-time';
import { retryUntilCommitted } from './retry-until-committed';

/** What a read of a settings head carries besides its value (store/outbox-heads.ts). */
interface HeadRead {
  version: number;
  changeId: string | undefined;
  outbox: AccountUpdatedDetail[];
  outboxRev: number;
}

type Kind = AccountUpdatedDetail['change']['kind'];

/**
 * A change of a pixel's settings head that announces itself (the account, the cost settings).
 * Writers of one head in one process queue; each attempt reads the head, recognises by its
 * `changeId` an earlier attempt that committed (its answer lost), derives the next value from what
 * it read, and stores it conditional on that version with `accountUpdated` (`change.kind`) in the
 * outbox of the same write, so the event is published if and only if the write committed. A
 * conflict re-reads and retries until the deadline. A change that changes nothing writes nothing
 * and sends no event.
 */
export async function commitSettingsChange<Read extends HeadRead, Value>(command: {
  pixelId: string;
  apiKeyPk: string;
  requestTime: Date;
  kind: Kind;
  load: (pixelId: string) => Promise<Read | undefined>;
  /** The value a read holds. */
  valueOf: (read: Read) => Value;
  /** The value to store after `current`, and whether it differs from it. */
  next: (current: Read | undefined) => { value: Value; changed: boolean };
  save: (
    pixelId: string,
    value: Value,
    expectedVersion: number | undefined,
    updatedAt: Date,
    write: { changeId: string; outbox: AccountUpdatedDetail[]; outboxRev: number | undefined },
  ) => Promise<number>;
  isConflict: (error: unknown) => boolean;
}): Promise<Value> {
  const { pixelId, apiKeyPk, requestTime, kind, load, valueOf, next, save, isConflict } = command;
  const changeId = randomUUID();
  return oneAtATime(`${kind}\n${pixelId}`, () =>
    retryUntilCommitted(
      async () => {
        const current = await load(pixelId);
        if (current && current.changeId === changeId) return valueOf(current);
        const { value, changed } = next(current);
        if (!changed) return value;
        const version = (current?.version ?? 0) + 1;
        const event: AccountUpdatedDetail = {
          eventId: accountUpdatedEventId(pixelId, version, kind),
          pixelId,
          actor: `cli:${apiKeyPk}`,
          change: { kind },
          occurredAt: requestTime.toISOString(),
        };
        await save(pixelId, value, current?.version, requestTime, { changeId, outbox: [...(current?.outbox ?? []), event], outboxRev: current?.outboxRev });
        return value;
      },
      { isConflict },
    ),
  );
}
