import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../../store/condition-failure';
import { documentClient, tableName } from '../../store/dynamo-client';
import { queryAll } from '../../store/query-all';
import { partitionNameOf } from './tables';

/**
 * Which Parquet files of a pixel's table are live, per UTC date: one DynamoDB item per pixel,
 * table and date (`PIXEL#<pixelId>#PARQUET#<table>` / `<YYYY-MM-DD>`), its `files` a string set
 * of file names and its `version` counting every change. A file is written to the object store
 * first and only then added here, so a reader never lists a file that is not there; a file
 * written and never added (a writer that crashed in between) is never read, and its name is
 * written again, with the same content, when the writer runs again.
 *
 * Adding is `ADD` to a set: adding a name twice is adding it once, so an append needs no read and
 * retries freely. Replacing (compaction) swaps names on the version read, so it fails, and is
 * redone, when an append came in between; a reader sees a date's files before the swap or after
 * it, never half of each.
 */
export const partitionKeyOf = (pixelId: string, table: string) => `PIXEL#${pixelId}#PARQUET#${table}`;

/** Object key of a file of a table's partition: Hive-style, so Athena and Spark read the layout as it is. */
export const fileKeyOf = (table: string, pixelId: string, partition: string, name: string) =>
  `${table}/pixel=${pixelId}/${partitionNameOf(table)}=${partition}/${name}.parquet`;

export interface PartitionFiles {
  date: string;
  files: string[];
  version: number;
}

/** Adds files to a date's live set (idempotent). */
export async function addFiles(pixelId: string, table: string, date: string, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: { PK: partitionKeyOf(pixelId, table), SK: date },
      UpdateExpression: 'ADD files :names, version :one',
      ExpressionAttributeValues: { ':names': new Set(names), ':one': 1 },
    }),
  );
}

/**
 * Adds files to a partition's live set if it is still at `version` (0: no file was ever added):
 * false when it changed meanwhile, and nothing is written. For a writer whose file depends on
 * what it read (a new version of an order): it reads again and starts over.
 */
export async function addFilesAt(pixelId: string, table: string, partition: string, version: number, names: readonly string[]): Promise<boolean> {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: partitionKeyOf(pixelId, table), SK: partition },
        UpdateExpression: 'ADD files :names, version :one',
        ConditionExpression: version === 0 ? 'attribute_not_exists(version)' : 'version = :version',
        ExpressionAttributeValues: { ':names': new Set(names), ':one': 1, ...(version === 0 ? {} : { ':version': version }) },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** One partition's live files and version (version 0 and no files: nothing was ever added). */
export async function partitionFiles(pixelId: string, table: string, partition: string): Promise<PartitionFiles> {
  const [found] = await liveFilesWithEmpty(pixelId, table, partition, partition);
  return found ?? { date: partition, files: [], version: 0 };
}

/**
 * Replaces `removed` by `added` in a date's live set, if the set is still at `version`. False when
 * it changed meanwhile (nothing is written then): the caller reads it again and starts over.
 */
export async function replaceFiles(pixelId: string, table: string, date: string, version: number, removed: readonly string[], added: readonly string[]): Promise<boolean> {
  const names = { '#files': 'files' };
  const actions = [
    added.length > 0 ? 'ADD #files :added' : undefined,
    removed.length > 0 ? 'DELETE #files :removed' : undefined,
  ].filter(Boolean);
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: partitionKeyOf(pixelId, table), SK: date },
        UpdateExpression: `SET version = version + :one ${actions.join(' ')}`,
        ConditionExpression: 'version = :version',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: {
          ':one': 1,
          ':version': version,
          ...(added.length > 0 ? { ':added': new Set(added) } : {}),
          ...(removed.length > 0 ? { ':removed': new Set(removed) } : {}),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The live files of every date from `from` to `to` (UTC dates, both included) that has any. */
export async function liveFiles(pixelId: string, table: string, from: string, to: string): Promise<PartitionFiles[]> {
  return (await liveFilesWithEmpty(pixelId, table, from, to)).filter((partition) => partition.files.length > 0);
}

async function liveFilesWithEmpty(pixelId: string, table: string, from: string, to: string): Promise<PartitionFiles[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': partitionKeyOf(pixelId, table), ':from': from, ':to': to },
    ConsistentRead: true,
  });
  return items
    .map((item) => ({ date: item.SK as string, files: [...((item.files as Set<string> | undefined) ?? [])].sort(), version: Number(item.version ?? 0) }));
}

/** Every date of a pixel's table that has files, oldest first. */
export async function partitionDates(pixelId: string, table: string): Promise<string[]> {
  const { Items = [] } = await documentClient.send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': partitionKeyOf(pixelId, table) },
      ProjectionExpression: 'SK',
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => item.SK as string);
}
