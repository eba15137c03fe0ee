import type { BuildOptions } from 'esbuild';

/**
 * How every function is bundled, in one place: the CDK construct deploys with these settings and
 * the benchmark and bundle tests build with them, so what is measured is what ships.
 *
 * The AWS SDK is bundled, not taken from the runtime: the version we test is the version that
 * runs, and init time measured no worse (shared/reference/feasibility-probe.md section 4). CJS
 * output avoids the ESM loader's cost; `module` first in mainFields lets esbuild tree-shake the
 * SDK's ES builds.
 */
export const BUNDLING = {
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  minify: true,
  sourcemap: true,
  // The map only has to turn minified positions into file:line for stack traces; leaving the
  // sources out of it halves each asset.
  sourcesContent: false,
  mainFields: ['module', 'main'],
  // The analytics engine is a native module: never bundled, it ships beside the bundle of the
  // functions that run it (lib/constructs/api-function.ts `analyticsEngine`). Modules that can
  // reach it load it only when a request needs it.
  external: ['@duckdb/node-api'] as string[],
} as const;

export function esbuildOptions(entryPoint: string, outfile: string): BuildOptions {
  return {
    entryPoints: [entryPoint],
    outfile,
    bundle: true,
    platform: BUNDLING.platform,
    target: BUNDLING.target,
    format: BUNDLING.format,
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourcemap,
    sourcesContent: BUNDLING.sourcesContent,
    mainFields: [...BUNDLING.mainFields],
    external: [...BUNDLING.external],
    logLevel: 'silent',
  };
}
