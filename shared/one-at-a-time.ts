/**
 * Runs the calls made with the same key one after another, in arrival order, within this process.
 *
 * Writers of one item in one process (the local server, a Lambda container's overlapping awaits)
 * would otherwise conflict with each other and spend the store's capacity on attempts that are
 * bound to fail. Across processes the optimistic version check still decides; this only stops a
 * process from racing itself. Keys are forgotten as soon as their last call ends.
 */
const tails = new Map<string, Promise<void>>();

export async function oneAtATime<T>(key: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const tail = previous.then(() => new Promise<void>((resolve) => (release = resolve)));
  tails.set(key, tail);
  await previous;
  try {
    return await work();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
