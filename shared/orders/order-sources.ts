import { mergeOrder, type OrderState } from './merge-order';
import type { OrderUpdate } from './order';

/**
 * An order is a function of its sources: every statement made about it (a purchase event, an
 * imported line), each kept under a stable key and folded with the merge rules. A source replaces
 * the one under the same key only when it comes earlier in the log (`pos`), so the order depends on
 * which statements were made, never on the order or the number of times they were applied: a
 * retry, a duplicate or a late projection changes nothing.
 */
export interface OrderSource {
  /** Stable per statement: `event:<eventId>`, or `import:<hash of the line>`. */
  key: string;
  /** Log position of the statement; of two under one key the smaller wins. Imports use `import`. */
  pos: string;
  /** When the service received it: the order's `createdAt` is the earliest, `updatedAt` the latest. */
  at: string;
  update: OrderUpdate;
}

/** An order's sources as stored with it, by key. */
export type StoredSources = Record<string, Omit<OrderSource, 'key'>>;

/**
 * Takes back the statement under `key` if it came later in the log than `beforePos`: that
 * delivery of an event lost to an earlier one, which says something else (or nothing) about
 * this order. Idempotent; an order left without any statement no longer exists.
 */
export interface OrderRetraction {
  orderId: string;
  key: string;
  beforePos: string;
}

/** The sources an order has once `sources` and `retractions` are applied to `known`, and whether that changed anything. */
export function applySources(
  known: StoredSources,
  sources: readonly OrderSource[],
  retractions: readonly Pick<OrderRetraction, 'key' | 'beforePos'>[],
): { merged: StoredSources; changed: boolean } {
  const merged: StoredSources = { ...known };
  let changed = false;
  for (const { key, beforePos } of retractions) {
    const current = merged[key];
    if (current !== undefined && current.pos > beforePos) {
      delete merged[key];
      changed = true;
    }
  }
  for (const { key, ...source } of sources) {
    const current = merged[key];
    if (current === undefined || source.pos < current.pos) {
      merged[key] = source;
      changed = true;
    }
  }
  return { merged, changed };
}

/**
 * The order its sources describe: merged in a fixed order (time received, then position, then
 * key), so the result is the same whatever order they arrived in.
 */
export function foldSources(sources: StoredSources): OrderState {
  const ordered = Object.entries(sources).sort(([keyA, a], [keyB, b]) =>
    a.at < b.at ? -1 : a.at > b.at ? 1 : a.pos < b.pos ? -1 : a.pos > b.pos ? 1 : keyA < keyB ? -1 : keyA > keyB ? 1 : 0,
  );
  let state: OrderState | undefined;
  let latest = '';
  for (const [, source] of ordered) {
    state = mergeOrder(state, source.update, new Date(source.at));
    if (source.at > latest) latest = source.at;
  }
  if (!state) throw new Error('an order needs at least one source');
  state.order.updatedAt = new Date(latest).toISOString();
  return state;
}

/** The state without `updatedAt`, with keys sorted: equal fingerprints mean a write would change nothing. */
export function fingerprint(state: OrderState): string {
  const { updatedAt: _updatedAt, ...order } = state.order;
  return stableJson({ order, fieldTimes: state.fieldTimes });
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}
