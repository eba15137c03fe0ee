import { issueAt, type ValidationIssue } from './errors';

/*
 * What no document this service reads may hold, whether it arrives as a request body or as a
 * record of an import file: the API and the import CLIs refuse the same things with the same words.
 */

/**
 * Keys that name JavaScript's object machinery. JSON.parse makes them ordinary own properties,
 * but the first `Object.assign`, spread into a class or `target[key] = value` downstream turns
 * them into prototype writes, so they are refused wherever they appear, never dropped.
 */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * The deepest nesting of objects and arrays a body may have. The deepest legitimate body (a
 * dashboard section's widget filter, five groups deep) is about 22 levels; recursion over a body
 * thousands of levels deep would overflow the stack.
 */
export const MAX_BODY_DEPTH = 64;

/**
 * The numbers DynamoDB can store: 0, or a magnitude from 1e-130 to below 1e126. A double outside
 * (`1e-200`, `1e300`, or `1e400`, which parses to Infinity) would pass validation and then fail
 * the write, a 5xx that no retry repairs; no quantity this API takes comes near those bounds.
 */
export function isStorableNumber(value: number): boolean {
  const magnitude = Math.abs(value);
  return magnitude === 0 || (magnitude >= 1e-130 && magnitude < 1e126);
}
const NUMBER_RANGE_MESSAGE = 'Number out of range: it must be 0 or have a magnitude from 1e-130 to below 1e126';

/** At most this many problems are listed; one is enough to fix, a flood helps nobody. */
const MAX_LISTED = 100;

interface Visit {
  value: unknown;
  key: string;
  depth: number;
  member: boolean;
  parent: Visit | undefined;
}

/** A node's path, built only for a node with a problem: most bodies have none. */
function pathOf(visit: Visit): string[] {
  const path: string[] = [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * Everything in a parsed document this API refuses to read, each at its path. Iterative, so a
 * document of any depth is walked without recursion.
 */
export function unreadableParts(document: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  // Depth first, children pushed in reverse, so problems are listed in document order.
  const stack: Visit[] = [{ value: document, key: '', depth: 0, member: false, parent: undefined }];
  while (stack.length > 0 && issues.length < MAX_LISTED) {
    const visit = stack.pop()!;
    const { value, key, member } = visit;
    if (member && FORBIDDEN_KEYS.has(key)) {
      issues.push(issueAt(pathOf(visit), `Key '${key}' is not allowed`, 'forbidden_key'));
    } else if (member && !key.isWellFormed()) {
      issues.push(issueAt(pathOf(visit), 'Keys must be Unicode text: this one holds a lone surrogate', 'invalid_format'));
    } else if (typeof value === 'string') {
      if (!value.isWellFormed()) issues.push(issueAt(pathOf(visit), 'Must be Unicode text: it holds a lone surrogate (an unpaired \\ud800-\\udfff escape)', 'invalid_format'));
    } else if (typeof value === 'number') {
      if (!isStorableNumber(value)) issues.push(issueAt(pathOf(visit), NUMBER_RANGE_MESSAGE, 'out_of_range'));
    } else if (value !== null && typeof value === 'object') {
      if (visit.depth >= MAX_BODY_DEPTH) {
        issues.push(issueAt(pathOf(visit), `Objects and arrays may nest at most ${MAX_BODY_DEPTH} levels deep`, 'too_deep'));
        continue;
      }
      const depth = visit.depth + 1;
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], key: String(i), depth, member: false, parent: visit });
      } else {
        const keys = Object.keys(value);
        for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (value as Record<string, unknown>)[keys[i]!], key: keys[i]!, depth, member: true, parent: visit });
      }
    }
  }
  return issues;
}
