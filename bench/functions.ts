import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { routeTable } from '../lib/routes';
import { buildBundles, type BuiltBundle } from './bundle-size';
import type { RouteCapabilities } from '../lib/routes';
import { BARE_BUNDLE_ID, INIT_SAMPLING, initCases, measureInitTimes, type EngineInitCase, type InitCase, type InitSampling } from './init-time';
import { measureMiddlewareCases, type MiddlewareCase } from './middleware-overhead';
import { formatMs, formatTable } from './report';
import { mergeSectionIntoResults, resultsFilePath } from './results-file';
import { asCases } from './results-schema';
import { roundMs, summarize } from './stats';

const MIDDLEWARE = { rounds: 3, warmup: 200, requests: 2_000 };

export interface FunctionCases {
  functions: Record<string, { bundleBytes: number; initMs: { median: number; min: number; max: number; runs: number } }>;
  initCases: Record<string, InitCase | EngineInitCase>;
  middlewareCases: Record<string, MiddlewareCase>;
}

/**
 * Every function bundled as deployed, next to the bare bundle (bench/bare-handler.ts), into
 * bench/bundles: what `measureFunctions` loads. `npm run bench` bundles while the soak runs.
 */
export async function bundleFunctions(options: { projectRoot: string; log: (line?: string) => void }): Promise<BuiltBundle[]> {
  options.log(`Bundling ${routeTable.length} functions and the bare baseline with the deployed esbuild settings...`);
  return buildBundles([...routeTable, { id: BARE_BUNDLE_ID, handler: 'bench/bare-handler.ts' }], {
    projectRoot: options.projectRoot,
    outDir: join(options.projectRoot, 'bench', 'bundles'),
  });
}

/** The init sampling, with `BENCH_INIT_RUNS` (samples per route) taken from the environment when set. */
export function initSamplingFromEnv(env: NodeJS.ProcessEnv = process.env): InitSampling {
  return { ...INIT_SAMPLING, runs: Number(env.BENCH_INIT_RUNS ?? INIT_SAMPLING.runs) };
}

/**
 * Module init of each bundle in fresh processes, interleaved with the bare bundle, then the
 * request pipeline's cost per warm request.
 */
export async function measureFunctions(options: {
  bundles: readonly BuiltBundle[];
  log: (line?: string) => void;
  /** Init samples per route, and how the bare bundle is sampled between them (bench/init-time.ts). */
  initSampling?: InitSampling;
  /** Fewer for `npm run bench -- --quick`. */
  middleware?: { rounds: number; warmup: number; requests: number };
}): Promise<FunctionCases> {
  const { bundles, log, initSampling = INIT_SAMPLING, middleware = MIDDLEWARE } = options;
  log(
    `Timing module init: ${initSampling.runs} fresh node processes per function in a shuffled order each round, ` +
      `the bare bundle before every ${initSampling.bareEvery}, after ${initSampling.warmupRounds} warm-up round(s) not kept...`,
  );
  const engineRoutes = routeTable.filter((route) => (route.capabilities as RouteCapabilities).analytics).map((route) => route.id);
  const initSamples = await measureInitTimes(bundles, initSampling, engineRoutes);
  const functions: FunctionCases['functions'] = {};
  for (const bundle of bundles) {
    const init = summarize(initSamples.wallMs.get(bundle.routeId) ?? []);
    functions[bundle.routeId] = {
      bundleBytes: bundle.bytes,
      initMs: { median: roundMs(init.median), min: roundMs(init.min), max: roundMs(init.max), runs: init.count },
    };
  }
  log(`Timing the request pipeline: ${middleware.rounds} rounds of ${middleware.requests.toLocaleString('en-US')} warm requests per function...`);
  const middlewareCases = await measureMiddlewareCases(bundles, middleware);
  return { functions, initCases: initCases(initSamples), middlewareCases };
}

export function printFunctionCases(results: Pick<FunctionCases, 'initCases' | 'middlewareCases'>, log: (line?: string) => void): void {
  log('Module init against the bare bundle (DynamoDB client only; target ratio <= 1.15), and the request pipeline per warm request (401 path; target < 200 us above bare)');
  log(
    formatTable(
      ['function', 'init median', 'bare median', 'ratio', 'CPU ratio', 'pipeline p50', 'bare p50'],
      Object.entries(results.initCases).flatMap(([id, init]) => {
        if (!('ratio' in init)) return [];
        const routeId = id.slice('init.'.length);
        const pipeline = results.middlewareCases[`middleware.${routeId}`];
        return [
          [
            routeId,
            formatMs(init.medianMs),
            formatMs(init.bareMedianMs),
            init.ratio.toFixed(2),
            init.cpuRatio.toFixed(2),
            pipeline ? `${pipeline.p50Us} us` : '-',
            pipeline ? `${pipeline.bareP50Us} us` : '-',
          ],
        ];
      }),
    ),
  );
  const engine = Object.entries(results.initCases).filter(([id]) => id.startsWith('initEngine.'));
  if (engine.length > 0) {
    log('Routes that run the analytics engine: the bundle and DuckDB loaded, one statement answered (what their first request adds; target <= bare + 300 ms)');
    log(formatTable(['function', 'with engine', 'bare median', 'over bare'], engine.map(([id, init]) => [id.slice('initEngine.'.length), formatMs(init.medianMs), formatMs(init.bareMedianMs), formatMs((init as EngineInitCase).overBareMs)])));
  }
}

/** `npm run bench:init`: this section alone, its cases merged into the results file. */
if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const projectRoot = fileURLToPath(new URL('..', import.meta.url));
  const log = (line = '') => process.stdout.write(`${line}\n`);
  const bundles = await bundleFunctions({ projectRoot, log });
  const result = await measureFunctions({ bundles, log, initSampling: initSamplingFromEnv() });
  log();
  printFunctionCases(result, log);
  const resultsFile = resultsFilePath(projectRoot);
  mergeSectionIntoResults(resultsFile, {
    command: 'bench:init',
    owns: (id) => id.startsWith('init.') || id.startsWith('middleware.'),
    cases: { ...asCases(result.initCases), ...asCases(result.middlewareCases) },
    details: { functions: result.functions },
  });
  log(`Wrote ${resultsFile}`);
}
