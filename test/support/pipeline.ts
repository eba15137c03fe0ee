import { drainAll } from '../../shared/pipeline/drain';

/**
 * Runs the pipeline consumer until nothing is pending, as the local server's drain (or the
 * deployed stream) would: what a test reads after it is what an accepted request leads to.
 */
export const drainPipeline = (): Promise<number> => drainAll();
