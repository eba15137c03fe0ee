/**
 * A one-argument function's results, kept for the most recent `capacity` distinct arguments (all
 * forgotten at once when full: the callers ask about the same few values many times in a row,
 * such as one log entry's shard for each of its events, so nothing finer than that is needed).
 * Only for pure functions: a cached result is never checked again.
 */
export function memoizeBounded<R>(compute: (argument: string) => R, capacity = 10_000): (argument: string) => R {
  const results = new Map<string, R>();
  return (argument) => {
    const known = results.get(argument);
    if (known !== undefined || results.has(argument)) return known as R;
    if (results.size >= capacity) results.clear();
    const result = compute(argument);
    results.set(argument, result);
    return result;
  };
}
