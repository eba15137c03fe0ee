import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { RetryableFault } from '../faults';
import { mapWithConcurrency } from '../map-with-concurrency';
import { unlessRefused } from './condition-failure';
import { bulkDocumentClient, documentClient, tableName } from './dynamo-client';
import { transactionChunks } from './transaction-chunks';

/** One conditional put, as a PutItem call would take it (the table is the service's). */
export interface ConditionalPut {
  Item: Record<string, unknown> & { PK: string; SK: string };
  ConditionExpression: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

const CONCURRENCY = 4;
const MAX_ROUNDS = 8;

/**
 * Conditional puts of distinct items, each with the outcome it would have had alone: true when it
 * was written, false when its own condition refused it. They go up to 100 to a TransactWriteItems
 * call instead of one PutItem each: a call costs the SDK and the store far more than an item does
 * (measured: 4,000 conditional puts, one a call, took 10 to 20 times the client's CPU of 40
 * transactions), which DynamoDB bills at twice the write units of a plain put.
 *
 * The transaction's all-or-nothing is not what is wanted here, so a cancelled call is taken apart:
 * the puts its cancellation reasons name as refused by their condition are answered false, and
 * the others (cancelled with them, or in conflict with another writer, or throttled) go again in
 * the next round. A reason that would have failed the put alone too (an invalid item) is thrown.
 * A call that fails otherwise is thrown as it is: a transaction commits whole or not at all, and
 * each put is safe to send again.
 */
export async function putEachUnlessRefused(puts: readonly ConditionalPut[]): Promise<boolean[]> {
  const keys = new Set(puts.map(({ Item }) => `${Item.PK}\u0000${Item.SK}`));
  if (keys.size !== puts.length) throw new Error('putEachUnlessRefused takes one put an item: a transaction may not name an item twice');
  const written: boolean[] = new Array<boolean>(puts.length);
  let pending = puts.map((put, index) => ({ put, index }));
  // Puts cancelled only because another of their call was refused go again at once; a conflict
  // with another writer, or throttling, waits a little longer each round.
  let contended = false;
  for (let round = 0; pending.length > 0; round++) {
    if (round === MAX_ROUNDS) throw new RetryableFault(`${pending.length} conditional put(s) kept being cancelled by concurrent writes`);
    if (contended) await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** round));
    contended = false;
    const again: typeof pending = [];
    await mapWithConcurrency(transactionChunks(pending, ({ put }) => JSON.stringify(put).length), CONCURRENCY, async (chunk) => {
      // A put alone needs no transaction, and costs a plain put's write units.
      if (chunk.length === 1) return putEachAlone(chunk, written);
      try {
        await bulkDocumentClient.send(new TransactWriteCommand({ TransactItems: chunk.map(({ put }) => ({ Put: { TableName: tableName(), ...put } })) }));
        for (const { index } of chunk) written[index] = true;
      } catch (error) {
        if ((error as Error)?.name !== 'TransactionCanceledException') throw error;
        const reasons = cancellationReasons(error, chunk.length);
        // A store that does not say which action was refused: each put learns it alone.
        if (!reasons) return putEachAlone(chunk, written);
        chunk.forEach((one, i) => {
          const code = reasons[i] ?? 'None';
          if (code === 'ConditionalCheckFailed') written[one.index] = false;
          else if (code === 'None') again.push(one);
          else if (RETRIED_CODES.has(code)) {
            contended = true;
            again.push(one);
          }
          else throw Object.assign(new Error(`conditional put of ${one.put.Item.PK} / ${one.put.Item.SK} cancelled: ${code}`), { name: code, cause: error });
        });
      }
    });
    pending = again.sort((a, b) => a.index - b.index);
  }
  return written;
}

/** Reasons a put cancelled with others may succeed when sent again. */
const RETRIED_CODES = new Set(['TransactionConflict', 'ProvisionedThroughputExceeded', 'ThrottlingError', 'RequestLimitExceeded']);

async function putEachAlone(chunk: ReadonlyArray<{ put: ConditionalPut; index: number }>, written: boolean[]): Promise<void> {
  await mapWithConcurrency(chunk, CONCURRENCY, async ({ put, index }) => {
    written[index] = await unlessRefused(() => documentClient.send(new PutCommand({ TableName: tableName(), ...put })));
  });
}

/** Each action's cancellation code, when the cancelled transaction names one for every action. */
function cancellationReasons(error: unknown, actions: number): string[] | undefined {
  const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons;
  if (!Array.isArray(reasons) || reasons.length !== actions) return undefined;
  return reasons.map((reason) => reason?.Code ?? 'None');
}
