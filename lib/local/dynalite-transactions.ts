import { createHash, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dirname, join } from 'node:path';

type Callback<T = unknown> = (error: (Error & { statusCode?: number; body?: unknown; name?: string }) | null, value?: T) => void;
type Item = Record<string, unknown>;

interface ItemDb {
  lock(keys: string[], run: (release: <F extends (...args: never[]) => void>(done: F) => F) => void): void;
  get(key: string, callback: Callback<Item>): void;
  put(key: string, item: Item, callback: Callback): void;
  del(key: string, callback: Callback): void;
}

interface Store {
  getTable(name: string, callback: Callback<unknown>): void;
  getItemDb(name: string): ItemDb;
}

interface DynaliteDb {
  create(options: unknown): Store;
  transactionStores?: Store[];
  validateKey(key: unknown, table: unknown): Error | null | undefined;
  validateItem(item: unknown, table: unknown): Error | null | undefined;
  createKey(item: unknown, table: unknown): string;
  checkConditional(data: unknown, existing: Item | undefined): Error | null | undefined;
  updateIndexes(store: Store, table: unknown, oldItem: Item | undefined, newItem: Item | null, callback: Callback): void;
}

interface Validations {
  checkTypes(data: unknown, types: unknown): Record<string, unknown>;
  checkValidations(data: unknown, types: unknown, custom: unknown, store: Store): void;
}

const require = createRequire(import.meta.url);
const dynaliteDir = dirname(require.resolve('dynalite'));
const db = require(join(dynaliteDir, 'db', 'index.js')) as DynaliteDb;
const validations = require(join(dynaliteDir, 'validations', 'index.js')) as Validations;
const actionValidations = {
  Put: require(join(dynaliteDir, 'validations', 'putItem.js')) as { types: unknown; custom: unknown },
  Delete: require(join(dynaliteDir, 'validations', 'deleteItem.js')) as { types: unknown; custom: unknown },
};

const TARGET = 'DynamoDB_20120810.TransactWriteItems';
const MAX_ACTIONS = 100;
/** DynamoDB answers a repeated ClientRequestToken from memory for 10 minutes. */
const TOKEN_TTL_MS = 10 * 60_000;
const MAX_TOKENS = 10_000;

/**
 * TransactWriteItems for the local store: dynalite 4.0.0 has no transactions, so code that writes
 * several items all or none (the order store's upserts) had to fall back to one conditional
 * PutItem an item there, a path that runs nowhere else, and at one store call an order it was a
 * tenth of the ingestion pipeline's calls. This answers the operation in front of dynalite, with
 * dynalite's own validation, condition checks, index upkeep and per-item locks:
 *
 * - `Put`, `Delete` and `ConditionCheck`, each validated as the PutItem or DeleteItem it stands
 *   for, on up to 100 distinct items; `Update` is answered with a ValidationException (nothing
 *   here uses it: DynamoDB Local, which the exactly-once suites also run on, has it all).
 * - Every item's lock is taken (the `lock` package orders several keys itself), every condition is
 *   checked against the items as they are, and only when all hold are the writes made, before
 *   any lock is released: no other request sees or makes a change in between.
 * - A failed condition cancels the whole: `TransactionCanceledException` with one
 *   `CancellationReasons` entry an action, `ConditionalCheckFailed` (with the item when
 *   `ReturnValuesOnConditionCheckFailure` is `ALL_OLD`) or `None`, as DynamoDB answers.
 * - A `ClientRequestToken` seen in the last 10 minutes with the same request is answered as a
 *   success without writing again (the SDK sends one on every call and repeats it on a retry);
 *   with a different request, `IdempotentParameterMismatchException`.
 */
export function addDynaliteTransactions(): void {
  if (db.transactionStores) return;
  const stores: Store[] = [];
  db.transactionStores = stores;
  const create = db.create.bind(db);
  db.create = (options) => {
    const store = create(options);
    stores.push(store);
    return store;
  };
}

/** The store of the dynalite server made last: call right after `dynalite(...)` returns. */
export function lastDynaliteStore(): Store {
  const store = db.transactionStores?.at(-1);
  if (!store) throw new Error('addDynaliteTransactions() must run before dynalite creates its store');
  return store;
}

/** Answers TransactWriteItems for `store`; false for any other request, which is left to dynalite. */
export function handleTransactWrite(store: Store, request: IncomingMessage, response: ServerResponse): boolean {
  if (request.method !== 'POST' || request.headers['x-amz-target'] !== TARGET) return false;
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks);
    let data: TransactRequest;
    try {
      data = JSON.parse(body.toString('utf8')) as TransactRequest;
    } catch {
      send(response, 400, { __type: 'com.amazon.coral.service#SerializationException' });
      return;
    }
    const answer: Callback = (failure) => {
      if (failure?.statusCode) send(response, failure.statusCode, failure.body);
      else if (failure) send(response, 500, { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: failure.message });
      else send(response, 200, {});
    };
    // A malformed request is answered, never thrown: this runs in the store's process.
    try {
      if (typeof data !== 'object' || data === null) answer(validationError('The request body must be a JSON object'));
      // A retry repeats the request byte for byte, token included: its digest is the body's.
      else transactWrite(store, data, createHash('sha256').update(body).digest('hex'), answer);
    } catch (unexpected) {
      answer(unexpected as Error);
    }
  });
  return true;
}

interface TransactRequest {
  TransactItems?: Array<Record<string, Record<string, unknown>>>;
  ClientRequestToken?: string;
}

interface Action {
  kind: 'Put' | 'Delete' | 'ConditionCheck';
  data: Record<string, unknown>;
  table: unknown;
  itemDb: ItemDb;
  key: string;
}

const tokens = new Map<string, { digest: string; at: number }>();

function transactWrite(store: Store, request: TransactRequest, digest: string, done: Callback): void {
  const items = request.TransactItems;
  if (!Array.isArray(items) || items.length === 0 || items.length > MAX_ACTIONS) {
    done(validationError(`1 validation error detected: Value at 'transactItems' failed to satisfy constraint: Member must have length between 1 and ${MAX_ACTIONS}`));
    return;
  }
  const token = request.ClientRequestToken;
  const now = Date.now();
  // Tokens are kept in the order they were first seen, so the expired ones are the first.
  for (const [seen, { at }] of tokens) {
    if (now - at <= TOKEN_TTL_MS && tokens.size <= MAX_TOKENS) break;
    tokens.delete(seen);
  }
  if (token !== undefined && tokens.has(token)) {
    if (tokens.get(token)!.digest === digest) done(null);
    else done(serviceError(400, 'IdempotentParameterMismatchException', 'The request uses the same client token as a previous, but non-identical request.'));
    return;
  }
  prepare(store, items, (prepareError, actions) => {
    if (prepareError || !actions) return done(prepareError);
    const byKey = new Set<string>();
    for (const action of actions) {
      const id = `${action.data.TableName as string}\u0000${action.key}`;
      if (byKey.has(id)) return done(validationError('Transaction request cannot include multiple operations on one item'));
      byKey.add(id);
    }
    // One table's items share one lock set; a transaction over several tables takes them table by table, in name order.
    const tables = [...new Map(actions.map((action) => [action.data.TableName as string, action.itemDb])).entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    lockAll(tables, actions, (release) => {
      const finish: Callback = (failure) => {
        release();
        if (!failure && token !== undefined) tokens.set(token, { digest, at: Date.now() });
        done(failure);
      };
      readAll(actions, (readError, existing) => {
        if (readError || !existing) return finish(readError);
        const reasons = actions.map((action, i) => {
          const failed = db.checkConditional(action.data, existing[i]);
          if (!failed) return { Code: 'None' };
          const withItem = action.data.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && existing[i] ? { Item: existing[i] } : {};
          // Worded as DynamoDB Local words it: with a full stop for a ConditionCheck only.
          return { Code: 'ConditionalCheckFailed', Message: `The conditional request failed${action.kind === 'ConditionCheck' ? '.' : ''}`, ...withItem };
        });
        if (reasons.some((reason) => reason.Code !== 'None')) {
          const codes = reasons.map((reason) => reason.Code).join(', ');
          const message = `Transaction cancelled, please refer cancellation reasons for specific reasons [${codes}]`;
          return finish(serviceError(400, 'TransactionCanceledException', message, { CancellationReasons: reasons }));
        }
        writeAll(store, actions, existing, finish);
      });
    });
  });
}

/** Each action validated as the single-item call it stands for, with its table and key. */
function prepare(store: Store, items: NonNullable<TransactRequest['TransactItems']>, done: Callback<Action[]>): void {
  const actions: Action[] = [];
  let next = 0;
  const step = (): void => {
    if (next === items.length) return done(null, actions);
    const member = items[next++]!;
    if (typeof member !== 'object' || member === null) return done(validationError('Each of TransactItems must be an object'));
    const kinds = Object.keys(member).filter((name) => member[name] != null);
    if (kinds.length !== 1) return done(validationError('TransactItems can only contain one of Check, Put, Update or Delete'));
    const kind = kinds[0] as string;
    if (kind === 'Update') return done(validationError('The local store (dynalite) takes Put, Delete and ConditionCheck in TransactWriteItems, not Update'));
    if (kind !== 'Put' && kind !== 'Delete' && kind !== 'ConditionCheck') return done(validationError(`Unknown TransactWriteItems action: ${kind}`));
    const raw = member[kind]!;
    if (typeof raw !== 'object') return done(validationError(`${kind} must be an object`));
    if (kind === 'ConditionCheck' && typeof raw.ConditionExpression !== 'string') return done(validationError('ConditionCheck requires a ConditionExpression'));
    const rules = actionValidations[kind === 'Put' ? 'Put' : 'Delete'];
    let data: Record<string, unknown>;
    try {
      const { ReturnValuesOnConditionCheckFailure, ...call } = raw;
      data = validations.checkTypes(call, rules.types);
      validations.checkValidations(data, rules.types, rules.custom, store);
      if (ReturnValuesOnConditionCheckFailure !== undefined) data.ReturnValuesOnConditionCheckFailure = ReturnValuesOnConditionCheckFailure;
    } catch (invalid) {
      return done(invalid as Error);
    }
    store.getTable(data.TableName as string, (tableError, table) => {
      if (tableError) return done(tableError);
      const invalid = kind === 'Put' ? db.validateItem(data.Item, table) : db.validateKey(data.Key, table);
      if (invalid) return done(invalid);
      actions.push({ kind, data, table, itemDb: store.getItemDb(data.TableName as string), key: db.createKey(kind === 'Put' ? data.Item : data.Key, table) });
      step();
    });
  };
  step();
}

function lockAll(tables: Array<[string, ItemDb]>, actions: readonly Action[], run: (release: () => void) => void): void {
  const releases: Array<() => void> = [];
  const take = (index: number): void => {
    if (index === tables.length) return run(() => releases.reverse().forEach((release) => release()));
    const [name, itemDb] = tables[index]!;
    itemDb.lock(
      actions.filter((action) => action.data.TableName === name).map((action) => action.key),
      (release) => {
        releases.push(release(() => undefined));
        take(index + 1);
      },
    );
  };
  take(0);
}

function readAll(actions: readonly Action[], done: Callback<Array<Item | undefined>>): void {
  const existing: Array<Item | undefined> = new Array(actions.length);
  let left = actions.length;
  let failed = false;
  actions.forEach((action, i) => {
    action.itemDb.get(action.key, (readError, item) => {
      if (failed) return;
      if (readError && readError.name !== 'NotFoundError') {
        failed = true;
        return done(readError);
      }
      existing[i] = item;
      if (--left === 0) done(null, existing);
    });
  });
}

/** The writes, one after another (a store failure midway is a local store's crash, not a refusal). */
function writeAll(store: Store, actions: readonly Action[], existing: ReadonlyArray<Item | undefined>, done: Callback): void {
  let next = 0;
  const step = (writeError?: Error | null): void => {
    if (writeError) return done(writeError);
    if (next === actions.length) return done(null);
    const i = next++;
    const action = actions[i]!;
    if (action.kind === 'ConditionCheck') return step();
    const newItem = action.kind === 'Put' ? (action.data.Item as Item) : null;
    db.updateIndexes(store, action.table, existing[i], newItem, (indexError) => {
      if (indexError) return done(indexError);
      if (newItem) action.itemDb.put(action.key, newItem, (error) => step(error));
      else action.itemDb.del(action.key, (error) => step(error));
    });
  };
  step();
}

function validationError(message: string) {
  return serviceError(400, 'ValidationException', message, {}, 'com.amazon.coral.validate');
}

function serviceError(statusCode: number, type: string, message: string, members: Record<string, unknown> = {}, namespace = 'com.amazonaws.dynamodb.v20120810') {
  return Object.assign(new Error(message), { statusCode, body: { __type: `${namespace}#${type}`, message, ...members } });
}

function send(response: ServerResponse, statusCode: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.statusCode = statusCode;
  response.setHeader('Content-Type', 'application/x-amz-json-1.0');
  response.setHeader('Content-Length', Buffer.byteLength(text));
  response.setHeader('x-amzn-RequestId', randomBytes(26).toString('hex').toUpperCase());
  response.end(text);
}
