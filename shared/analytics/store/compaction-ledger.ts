import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unlessRefused } from '../../store/condition-failure';
import { documentClient, tableName } from '../../store/dynamo-client';
import { partitionKeyOf } from './partitions';

/**
 * Compaction's bookkeeping, kept on the partition item itself (partitions.ts) beside `files` and
 * `version`, so that what it records changes in the same conditional write as the live set:
 *
 * - `compactor` / `compactorUntil`: the lease. One compaction (or sweep) of a partition at a time;
 *   every write below is conditional on holding it, so a holder that stalled past its lease and
 *   was taken over changes nothing.
 * - `retired`: `<epoch ms>:<name>` entries, each saying the file may be removed from that time on
 *   if it is not live then. A compaction's output gets one at its own start before it is written
 *   (never swapped in, it is removed by the next holder), the files a swap replaces one at the
 *   swap plus the grace (a reader that listed them just before may still read them). A name with
 *   several entries waits for the latest; entries of a live name are dropped.
 * - `removing`: the names the holder is removing right now. An append of one of them is refused
 *   (partitions.ts `addFiles`): the appender's copy may be the one removed, so it writes the file
 *   again once the removal is over. Without the mark, a retried append landing between a holder's
 *   read and its removal would leave a live name without its file.
 *
 * Readers never look at these attributes, and none of them changes `version`, so a compaction
 * never makes an append's or a reader's write fail.
 */
export interface PartitionLedger {
  date: string;
  files: string[];
  version: number;
  lease?: { owner: string; until: number };
  retired: Array<{ entry: string; name: string; at: number }>;
  removing: string[];
}

const keyOf = (pixelId: string, table: string, date: string) => ({ PK: partitionKeyOf(pixelId, table), SK: date });
const names = (set: unknown): string[] => [...((set as Set<string> | undefined) ?? [])].sort();
const retiredEntry = (name: string, at: number) => `${at}:${name}`;

function parseRetired(entry: string): { entry: string; name: string; at: number } {
  const colon = entry.indexOf(':');
  return { entry, name: entry.slice(colon + 1), at: Number(entry.slice(0, colon)) };
}

/** The partition item as stored now (strongly consistent), or undefined when there is none. */
export async function readLedger(pixelId: string, table: string, date: string): Promise<PartitionLedger | undefined> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName(), Key: keyOf(pixelId, table, date), ConsistentRead: true }));
  if (!Item) return undefined;
  return {
    date,
    files: names(Item.files),
    version: Number(Item.version ?? 0),
    ...(typeof Item.compactor === 'string' ? { lease: { owner: Item.compactor, until: Number(Item.compactorUntil ?? 0) } } : {}),
    retired: names(Item.retired).map(parseRetired),
    removing: names(Item.removing),
  };
}

/** Takes the partition's lease until `until`, if no one else holds an unexpired one. False when someone does. */
export function takeLease(pixelId: string, table: string, date: string, owner: string, until: number, now: number): Promise<boolean> {
  return unlessRefused(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(pixelId, table, date),
        UpdateExpression: 'SET compactor = :owner, compactorUntil = :until',
        // Only an existing partition: a lease never creates an item readers would list.
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(compactorUntil) OR compactorUntil < :now OR compactor = :owner)',
        ExpressionAttributeValues: { ':owner': owner, ':until': until, ':now': now },
      }),
    ),
  );
}

/** Gives the lease back, if still held. */
export async function releaseLease(pixelId: string, table: string, date: string, owner: string): Promise<void> {
  await unlessRefused(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(pixelId, table, date),
        UpdateExpression: 'REMOVE compactor, compactorUntil',
        ConditionExpression: 'compactor = :owner',
        ExpressionAttributeValues: { ':owner': owner },
      }),
    ),
  );
}

/** Adds `retired` entries: `name` may be removed from `at` on unless live. False when the lease is lost. */
export function noteRetired(pixelId: string, table: string, date: string, owner: string, entries: ReadonlyArray<{ name: string; at: number }>): Promise<boolean> {
  return unlessRefused(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(pixelId, table, date),
        UpdateExpression: 'ADD retired :entries',
        ConditionExpression: 'compactor = :owner',
        ExpressionAttributeValues: { ':owner': owner, ':entries': new Set(entries.map(({ name, at }) => retiredEntry(name, at))) },
      }),
    ),
  );
}

/**
 * The swap: the live set becomes the one read at `seen.version` less `inputs` plus `output`, and
 * each input may be removed from `removableAt` on: one write, conditional on the version read and
 * on the lease. False when either changed (nothing written). The set is written whole because
 * DynamoDB refuses one update that adds to and deletes from the same set.
 */
export function swapCompacted(
  pixelId: string,
  table: string,
  seen: Pick<PartitionLedger, 'date' | 'files' | 'version'>,
  owner: string,
  change: { inputs: readonly string[]; output: string; removableAt: number },
): Promise<boolean> {
  const gone = new Set(change.inputs);
  const next = [...new Set([...seen.files.filter((name) => !gone.has(name)), change.output])];
  return unlessRefused(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(pixelId, table, seen.date),
        UpdateExpression: 'SET #files = :next, version = version + :one ADD retired :retired',
        ConditionExpression: 'version = :version AND compactor = :owner',
        ExpressionAttributeNames: { '#files': 'files' },
        ExpressionAttributeValues: {
          ':next': new Set(next),
          ':one': 1,
          ':retired': new Set(change.inputs.map((name) => retiredEntry(name, change.removableAt))),
          ':version': seen.version,
          ':owner': owner,
        },
      }),
    ),
  );
}

/**
 * Starts a removal: `removing` becomes `names` and the `forget` entries go, in one write
 * conditional on the lease and on the version read, so no name in `names` became live since
 * (an append changes the version; once the mark is there, appends of those names are refused).
 * False when refused: the caller reads again.
 */
export function beginRemoval(pixelId: string, table: string, seen: Pick<PartitionLedger, 'date' | 'version'>, owner: string, names: readonly string[], forget: readonly string[]): Promise<boolean> {
  const updates = [names.length > 0 ? 'SET removing = :names' : 'REMOVE removing', forget.length > 0 ? 'DELETE retired :forget' : undefined].filter(Boolean);
  return unlessRefused(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(pixelId, table, seen.date),
        UpdateExpression: updates.join(' '),
        ConditionExpression: 'version = :version AND compactor = :owner',
        ExpressionAttributeValues: {
          ':version': seen.version,
          ':owner': owner,
          ...(names.length > 0 ? { ':names': new Set(names) } : {}),
          ...(forget.length > 0 ? { ':forget': new Set(forget) } : {}),
        },
      }),
    ),
  );
}

/** Ends a removal: the names may be appended again. */
export async function endRemoval(pixelId: string, table: string, date: string, owner: string): Promise<void> {
  await unlessRefused(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(pixelId, table, date),
        UpdateExpression: 'REMOVE removing',
        ConditionExpression: 'compactor = :owner',
        ExpressionAttributeValues: { ':owner': owner },
      }),
    ),
  );
}

/**
 * Takes `name` out of a removal whose holder is gone (its lease expired or given back after a
 * failure): nothing removes it any more. False when a holder is still at work.
 */
export function clearDeadRemoval(pixelId: string, table: string, date: string, name: string, now: number): Promise<boolean> {
  return unlessRefused(() =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keyOf(pixelId, table, date),
        UpdateExpression: 'DELETE removing :name',
        ConditionExpression: 'attribute_not_exists(compactorUntil) OR compactorUntil < :now',
        ExpressionAttributeValues: { ':name': new Set([name]), ':now': now },
      }),
    ),
  );
}
