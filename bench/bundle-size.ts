import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { esbuildOptions } from '../lib/bundling';
import type { RouteDefinition } from '../lib/routes';

export interface BuiltBundle {
  routeId: string;
  /** Absolute path of the bundled .js (its source map sits next to it and is not counted). */
  file: string;
  bytes: number;
}

/**
 * Bundles every function with the deployed esbuild settings, one directory per function laid out
 * like a Lambda asset (`index.js` + `index.js.map`).
 */
export async function buildBundles(
  routes: ReadonlyArray<Pick<RouteDefinition, 'handler'> & { id: string }>,
  options: { projectRoot: string; outDir: string },
): Promise<BuiltBundle[]> {
  rmSync(options.outDir, { recursive: true, force: true });
  mkdirSync(options.outDir, { recursive: true });
  // The project is "type": "module"; a Lambda asset has no package.json, so Node treats its
  // index.js as CommonJS. This marker gives the bundles the same treatment here.
  writeFileSync(join(options.outDir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);

  const bundles: BuiltBundle[] = [];
  for (const route of routes) {
    const file = join(options.outDir, route.id, 'index.js');
    const result = await build(esbuildOptions(resolve(options.projectRoot, route.handler), file));
    if (result.errors.length > 0) {
      throw new Error(`esbuild failed for ${route.id}: ${result.errors.map((error) => error.text).join('; ')}`);
    }
    bundles.push({ routeId: route.id, file, bytes: statSync(file).size });
  }
  return bundles;
}
