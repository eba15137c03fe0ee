/**
 * Settings every API function shares, deployed or local. The timeout stays well under API
 * Gateway's 30 s integration limit, so a slow call ends as our own 503, not a gateway 504.
 */
export const FUNCTION_DEFAULTS = {
  memoryMiB: 1024,
  timeoutSeconds: 10,
} as const;

/**
 * V8's heap sizes for a function whose route asks for them (RouteDefinition `heap`). Left alone,
 * Lambda's Node.js bootstrap sizes the young generation at a tenth of the function's memory
 * (semi-spaces of about 34 MB at 1,024 MB), and V8 on a large machine gives 64 MB semi-spaces:
 * a request that allocates a lot of short-lived garbage (the ad listing's store pages and series
 * text) then grows the young generation to well over 100 MB of resident memory while holding
 * 15 MB live. The bootstrap keeps its own sizes only when NODE_OPTIONS names neither flag, so
 * both are set: the old generation to what the bootstrap would give (memory less a tenth).
 */
export interface FunctionHeap {
  /** `--max-semi-space-size`, MiB: the young generation is at most three of these. */
  semiSpaceMiB: number;
}

/**
 * A function's NODE_OPTIONS, the one source for the stack (lib/constructs/api-function.ts) and
 * for the benchmark's serving process (bench/ad-listing.ts), so what is measured is what runs.
 * Source maps: stack traces point at the TypeScript source instead of the minified bundle.
 */
export function functionNodeOptions(heap?: FunctionHeap): string {
  const options = ['--enable-source-maps'];
  if (heap) {
    const oldSpaceMiB = FUNCTION_DEFAULTS.memoryMiB - Math.floor(FUNCTION_DEFAULTS.memoryMiB / 10);
    options.push(`--max-semi-space-size=${heap.semiSpaceMiB}`, `--max-old-space-size=${oldSpaceMiB}`);
  }
  return options.join(' ');
}
