import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { routeTable } from '../lib/routes';
import { buildBundles } from './bundle-size';
import { BARE_BUNDLE_ID, initCases, measureInitTimes, type InitCase } from './init-time';
import { measureMiddlewareCases, type MiddlewareCase } from './middleware-overhead';
import { formatMs, formatTable } from './report';
import { roundMs, summarize } from './stats';

const MIDDLEWARE_ROUNDS = 3;
const MIDDLEWARE_REQUESTS = 2_000;

export interface FunctionCases {
  functions: Record<string, { bundleBytes: number; initMs: { median: number; min: number; max: number; runs: number } }>;
  initCases: Record<string, InitCase>;
  middlewareCases: Record<string, MiddlewareCase>;
}

/**
 * Every function bundled as deployed, next to the bare bundle (bench/bare-handler.ts): module init
 * of each in fresh processes, interleaved, then the request pipeline's cost per warm request.
 */
export async function measureFunctions(options: { projectRoot: string; log: (line?: string) => void; initRuns: number }): Promise<FunctionCases> {
  const { projectRoot, log, initRuns } = options;
  log(`Bundling ${routeTable.length} functions and the bare baseline with the deployed esbuild settings...`);
  const bundles = await buildBundles([...routeTable, { id: BARE_BUNDLE_ID, handler: 'bench/bare-handler.ts' }], {
    projectRoot,
    outDir: join(projectRoot, 'bench', 'bundles'),
  });
  log(`Timing module init: ${initRuns} fresh node processes per function, interleaved with the bare bundle...`);
  const initSamples = await measureInitTimes(bundles, initRuns);
  const functions: FunctionCases['functions'] = {};
  for (const bundle of bundles) {
    const init = summarize(initSamples.wallMs.get(bundle.routeId) ?? []);
    functions[bundle.routeId] = {
      bundleBytes: bundle.bytes,
      initMs: { median: roundMs(init.median), min: roundMs(init.min), max: roundMs(init.max), runs: init.count },
    };
  }
  log(`Timing the request pipeline: ${MIDDLEWARE_ROUNDS} rounds of ${MIDDLEWARE_REQUESTS.toLocaleString('en-US')} warm requests per function...`);
  const middlewareCases = await measureMiddlewareCases(bundles, { rounds: MIDDLEWARE_ROUNDS, warmup: 200, requests: MIDDLEWARE_REQUESTS });
  return { functions, initCases: initCases(initSamples), middlewareCases };
}

export function printFunctionCases(results: Pick<FunctionCases, 'initCases' | 'middlewareCases'>, log: (line?: string) => void): void {
  log('Module init against the bare bundle (DynamoDB client only; target ratio <= 1.15), and the request pipeline per warm request (401 path; target < 200 us above bare)');
  log(
    formatTable(
      ['function', 'init median', 'bare median', 'ratio', 'CPU ratio', 'pipeline p50', 'bare p50'],
      Object.entries(results.initCases).map(([id, init]) => {
        const routeId = id.slice('init.'.length);
        const pipeline = results.middlewareCases[`middleware.${routeId}`];
        return [
          routeId,
          formatMs(init.medianMs),
          formatMs(init.bareMedianMs),
          init.ratio.toFixed(2),
          init.cpuRatio.toFixed(2),
          pipeline ? `${pipeline.p50Us} us` : '-',
          pipeline ? `${pipeline.bareP50Us} us` : '-',
        ];
      }),
    ),
  );
}

/** `npm run bench:init`: this section alone, its cases merged into bench/results.json. */
if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const projectRoot = fileURLToPath(new URL('..', import.meta.url));
  const log = (line = '') => process.stdout.write(`${line}\n`);
  const result = await measureFunctions({ projectRoot, log, initRuns: Number(process.env.BENCH_INIT_RUNS ?? 15) });
  log();
  printFunctionCases(result, log);
  const resultsFile = join(projectRoot, 'bench', 'results.json');
  let results: { cases?: Record<string, unknown> } & Record<string, unknown> = {};
  try {
    results = JSON.parse(readFileSync(resultsFile, 'utf8')) as typeof results;
  } catch {
    // No earlier run: this section alone.
  }
  const cases = { ...results.cases, ...result.initCases, ...result.middlewareCases };
  writeFileSync(resultsFile, `${JSON.stringify({ ...results, functions: result.functions, cases }, null, 2)}\n`);
  log(`Wrote ${resultsFile}`);
}
