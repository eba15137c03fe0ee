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
export const CHILD_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH ?? '',
  TABLE_NAME: 'bench-table',
  EVENT_BUS_NAME: 'bench-bus',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'bench',
  AWS_SECRET_ACCESS_KEY: 'bench',
  POWERTOOLS_LOG_LEVEL: 'WARN',
  // Lambda runs a Node the SDK supports, so it never takes the deprecation-warning path at load.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // The stack sets this on every function (lib/constructs/api-function.ts): Node then reads each
  // bundle's source map at load, which is part of what a cold start costs.
  NODE_OPTIONS: '--enable-source-maps',
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

/** The id under which the bare bundle (bench/bare-handler.ts) is sampled next to the routes. */
export const BARE_BUNDLE_ID = 'bare';

export interface InitCase {
  medianMs: number;
  bareMedianMs: number;
  /** The route's median over the bare bundle's median, both from the same interleaved run. */
  ratio: number;
}

/** `init.<routeId>` figures from samples that hold the bare bundle's next to every route's. */
export function initCases(samples: ReadonlyMap<string, readonly number[]>): Record<string, InitCase> {
  const bare = samples.get(BARE_BUNDLE_ID);
  if (!bare?.length) throw new Error('init samples hold no run of the bare bundle');
  const bareMedianMs = median(bare);
  const cases: Record<string, InitCase> = {};
  for (const [id, routeSamples] of samples) {
    if (id === BARE_BUNDLE_ID || routeSamples.length === 0) continue;
    const medianMs = median(routeSamples);
    cases[`init.${id}`] = {
      medianMs: Math.round(medianMs * 100) / 100,
      bareMedianMs: Math.round(bareMedianMs * 100) / 100,
      ratio: Math.round((medianMs / bareMedianMs) * 1000) / 1000,
    };
  }
  return cases;
}

function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
