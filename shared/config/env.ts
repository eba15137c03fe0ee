/**
 * Reads a required environment variable. Called when a client is first used rather than at
 * module load, so importing a handler never fails or touches the network; a missing variable
 * still fails loudly on the first request instead of silently targeting the wrong resource.
 */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    throw new Error(`Environment variable ${name} is required but not set`);
  }
  return value;
}
