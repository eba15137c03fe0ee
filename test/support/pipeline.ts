import { spawn } from 'node:child_process';
import { drainAll } from '../../shared/pipeline/drain';
import { tableName } from '../../shared/store/dynamo-client';
import { pendingPartition, pendingShardOf } from '../../shared/store/pending-index';
import { queryAll } from '../../shared/store/query-all';

/**
 * Runs the pipeline consumer until nothing is pending, as the local server's drain (or the
 * deployed stream) would: what a test reads after it is what an accepted request leads to.
 */
export const drainPipeline = (): Promise<number> => drainAll();

/** The first pixel id `<prefix>_<n>` whose pending items share a drain shard with `pixelId`'s. */
export function neighbourOf(pixelId: string, prefix: string): string {
  for (let n = 0; ; n++) if (pendingShardOf(`${prefix}_${n}`) === pendingShardOf(pixelId)) return `${prefix}_${n}`;
}

/** Every item a shard of the pending index holds. */
export const pendingInShard = (shard: number): Promise<Array<Record<string, unknown>>> =>
  queryAll({ IndexName: 'GSI2', KeyConditionExpression: 'GSI2PK = :pk', ExpressionAttributeValues: { ':pk': pendingPartition(shard) } });

/** Runs `npm run replay-parked -- <args>` against this test file's table, as an operator would against a deployed one. */
export function replayParkedCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bin/replay-parked.ts', ...args, '--table', tableName()], { env: process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
