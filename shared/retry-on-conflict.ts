/**
 * Runs an optimistic read-modify-write until it commits: `attempt` reads the latest version,
 * applies its change and writes conditionally on that version; when another writer got there
 * first it is run again on the new version, after a short random pause so racers spread out.
 * After `maxAttempts` the conflict is thrown (a retryable fault: the client can try again).
 */
export async function retryOnConflict<T>(
  attempt: () => Promise<T>,
  options: { isConflict: (error: unknown) => boolean; maxAttempts: number },
): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      if (!options.isConflict(error) || tries >= options.maxAttempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * tries));
    }
  }
}
