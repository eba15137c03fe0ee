/**
 * Runs independent pieces of one step side by side and waits for every one of them before
 * answering (their values, in order); rejects with the first failure. Unlike `Promise.all`,
 * nothing of a failed step is still running once it is reported, so the step's retry never races
 * a write of the failed try.
 */
export async function settleAll<T extends readonly unknown[]>(work: readonly [...T]): Promise<{ -readonly [K in keyof T]: Awaited<T[K]> }> {
  const outcomes = await Promise.allSettled(work);
  const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return outcomes.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as { -readonly [K in keyof T]: Awaited<T[K]> };
}
