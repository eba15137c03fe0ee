import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { BuiltBundle } from './bundle-size';

const execFileAsync = promisify(execFile);

/**
 * Runs in a fresh `node` per sample: times evaluating the bundle, then checks that it exports a
 * handler so a broken bundle cannot pass as a fast one. No network call happens at module load,
 * so this isolates the code-loading part of a cold start.
 */
const CHILD_SCRIPT = `
const started = performance.now();
const loaded = require(process.argv[1]);
const elapsedMs = performance.now() - started;
if (typeof loaded.handler !== 'function') {
  process.stderr.write('bundle does not export a handler function');
  process.exit(2);
}
process.stdout.write(JSON.stringify({ elapsedMs }));
`;

/**
 * What a function's environment holds at load, with placeholder values. Built from scratch rather
 * than inherited, so neither a developer's AWS profile nor the benchmark's own loader flags
 * (NODE_OPTIONS from tsx) change what is measured.
 */
const CHILD_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH ?? '',
  TABLE_NAME: 'bench-table',
  EVENT_BUS_NAME: 'bench-bus',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  POWERTOOLS_LOG_LEVEL: 'WARN',
  // Lambda runs a Node the SDK supports, so it never takes the deprecation-warning path at load.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/**
 * Samples module init time for each bundle. Runs go round-robin across bundles, so drift in the
 * machine's load over the run spreads over every function instead of landing on one.
 */
export async function measureInitTimes(bundles: readonly BuiltBundle[], runs: number): Promise<Map<string, number[]>> {
  const samples = new Map<string, number[]>(bundles.map((bundle) => [bundle.routeId, []]));
  for (let run = 0; run < runs; run++) {
    for (const bundle of bundles) {
      samples.get(bundle.routeId)?.push(await initTimeOnce(bundle));
    }
  }
  return samples;
}

async function initTimeOnce(bundle: BuiltBundle): Promise<number> {
  try {
    const { stdout } = await execFileAsync(process.execPath, ['-e', CHILD_SCRIPT, bundle.file], { env: CHILD_ENV });
    const { elapsedMs } = JSON.parse(stdout) as { elapsedMs: number };
    return elapsedMs;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`Loading the ${bundle.routeId} bundle failed${stderr ? `: ${stderr}` : ''}`, { cause: error });
  }
}
