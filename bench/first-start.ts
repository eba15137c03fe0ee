import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * How long `npm start`'s program takes, on an empty data directory, from launch to its ready
 * line: creating the table, seeding the demo pixel with its ads and importing every handler. It is
 * what a newcomer waits for, so it is measured like any other latency and never asserted.
 */
export async function measureFirstStart(options: { projectRoot: string; runs: number }): Promise<number[]> {
  const samples: number[] = [];
  for (let run = 0; run < options.runs; run++) samples.push(await timeOneFirstStart(options.projectRoot));
  return samples;
}

async function timeOneFirstStart(projectRoot: string): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-first-start-'));
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local-server.ts'], {
    cwd: projectRoot,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), DYNAMODB_PORT: String(await freePort()), LOG_REQUESTS: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    return await new Promise<number>((resolve, reject) => {
      let output = '';
      const onData = (chunk: Buffer) => {
        output += chunk;
        if (output.includes(`listening on http://127.0.0.1:${port}`)) resolve(performance.now() - started);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', (chunk: Buffer) => (output += chunk));
      child.once('exit', (code) => reject(new Error(`local server exited (${code}) before it was ready:\n${output.slice(-2000)}`)));
    });
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
