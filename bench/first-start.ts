import { rmSync } from 'node:fs';
import { spawnLocalServer } from '../lib/local/spawned-server';

/**
 * How long `npm start`'s program takes, on an empty data directory, from launch to its ready
 * line: creating the table, seeding the demo pixel with its ads and importing every handler. It is
 * what a newcomer waits for, so it is measured like any other latency and never asserted.
 */
export async function measureFirstStart(options: { projectRoot: string; runs: number }): Promise<number[]> {
  const samples: number[] = [];
  for (let run = 0; run < options.runs; run++) {
    const server = await spawnLocalServer({ projectRoot: options.projectRoot });
    samples.push(server.readyAfterMs);
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
  return samples;
}
