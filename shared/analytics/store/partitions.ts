import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
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
 * it, never half of each. Compaction keeps its own bookkeeping on the same item
 * (compaction-ledger.ts); readers never look at it, and an append only at its `removing` mark.
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

/**
 * Adds files to a date's live set (idempotent) and gives back the set and version as they are
 * after it: what a writer needs to tell whether the date is due for compaction, at no extra call.
 * Refused, with `'removing'`, while a compaction is removing a file of one of these names (a retry
 * of an append that compaction had merged): the writer's copy may be the one removed, so it
 * writes the file again and adds it once the removal is over (table-writer.ts).
 */
export async function addFiles(pixelId: string, table: string, date: string, names: readonly string[]): Promise<PartitionFiles | 'removing'> {
  if (names.length === 0) throw new Error('addFiles needs at least one name');
  const values = Object.fromEntries(names.map((name, index) => [`:name${index}`, name]));
  try {
    const { Attributes = {} } = await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: partitionKeyOf(pixelId, table), SK: date },
        UpdateExpression: 'ADD files :names, version :one',
        ConditionExpression: Object.keys(values).map((key) => `NOT contains(removing, ${key})`).join(' AND '),
        ExpressionAttributeValues: { ':names': new Set(names), ':one': 1, ...values },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return { date, files: namesOf(Attributes.files), version: Number(Attributes.version ?? 0) };
  } catch (error) {
    if (isConditionFailure(error)) return 'removing';
    throw error;
  }
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
  return (await readPartition(pixelId, table, partition)) ?? { date: partition, files: [], version: 0 };
}

/**
 * Replaces `removed` by `added` in a date's live set, if the set is still at `version`. False when
 * it changed meanwhile (nothing is written then): the caller reads it again and starts over.
 *
 * DynamoDB refuses one update that both adds to and deletes from the same set ("two document
 * paths overlap"), so the set is read and written whole: the write is conditional on the version
 * read, which is the caller's, so it replaces exactly the set the caller saw.
 */
export async function replaceFiles(pixelId: string, table: string, date: string, version: number, removed: readonly string[], added: readonly string[]): Promise<boolean> {
  const current = await readPartition(pixelId, table, date);
  if ((current?.version ?? 0) !== version) return false;
  const gone = new Set(removed);
  const next = [...new Set([...(current?.files ?? []).filter((name) => !gone.has(name)), ...added])];
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: { PK: partitionKeyOf(pixelId, table), SK: date },
        // A set cannot be empty in DynamoDB: a date left without files has none.
        UpdateExpression: next.length > 0 ? 'SET #files = :next, version = version + :one' : 'SET version = version + :one REMOVE #files',
        ConditionExpression: 'version = :version',
        ExpressionAttributeNames: { '#files': 'files' },
        ExpressionAttributeValues: { ':one': 1, ':version': version, ...(next.length > 0 ? { ':next': new Set(next) } : {}) },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** A date's live files and version as stored now (strongly consistent), or undefined when it never had any. */
export async function readPartition(pixelId: string, table: string, date: string): Promise<PartitionFiles | undefined> {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName(), Key: { PK: partitionKeyOf(pixelId, table), SK: date }, ConsistentRead: true }),
  );
  return Item ? { date, files: namesOf(Item.files), version: Number(Item.version ?? 0) } : undefined;
}

const namesOf = (set: unknown): string[] => [...((set as Set<string> | undefined) ?? [])].sort();

/** The live files of every date from `from` to `to` (UTC dates, both included) that has any. */
export async function liveFiles(pixelId: string, table: string, from: string, to: string): Promise<PartitionFiles[]> {
  const items = await queryAll({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': partitionKeyOf(pixelId, table), ':from': from, ':to': to },
    ConsistentRead: true,
  });
  return items
    .map((item) => ({ date: item.SK as string, files: namesOf(item.files), version: Number(item.version ?? 0) }))
    .filter((partition) => partition.files.length > 0);
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
