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
const cpuStarted = process.cpuUsage();
const started = performance.now();
const loaded = require(process.argv[1]);
const elapsedMs = performance.now() - started;
const cpu = process.cpuUsage(cpuStarted);
const cpuMs = (cpu.user + cpu.system) / 1000;
if (typeof loaded.handler !== 'function') {
  process.stderr.write('bundle does not export a handler function');
  process.exit(2);
}
if (process.argv[2] !== 'engine') {
  process.stdout.write(JSON.stringify({ elapsedMs, cpuMs }));
} else {
  // What the first request of a route that runs the analytics engine adds: loading DuckDB and
  // answering one statement (shared/analytics/store/duckdb.ts loads it on first use).
  (async () => {
    const { DuckDBInstance } = require('@duckdb/node-api');
    const connection = await (await DuckDBInstance.create(':memory:')).connect();
    await connection.run('SELECT 1');
    const total = performance.now() - started;
    const totalCpu = process.cpuUsage(cpuStarted);
    process.stdout.write(JSON.stringify({ elapsedMs: total, cpuMs: (totalCpu.user + totalCpu.system) / 1000 }));
    process.exit(0);
  })();
}
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
  // Set by Lambda: it turns the X-Ray tracer on (shared/config/tracing.ts), loaded at the first request.
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
  // Lambda runs a Node the SDK supports, so it never takes the deprecation-warning path at load.
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  // The stack sets this on every function (lib/constructs/api-function.ts): Node then reads each
  // bundle's source map at load, which is part of what a cold start costs.
  NODE_OPTIONS: '--enable-source-maps',
};

/** Init samples in milliseconds by bundle id: wall-clock time, and the CPU time the process spent in it. */
export interface InitSamples {
  wallMs: Map<string, number[]>;
  cpuMs: Map<string, number[]>;
}

/** The id under which the bare bundle (bench/bare-handler.ts) is sampled next to the routes. */
export const BARE_BUNDLE_ID = 'bare';

/** The sample id of a route's bundle loaded together with the analytics engine (`initEngine.<routeId>`). */
const ENGINE_PREFIX = 'engine:';

/** How the init samples are taken: the defaults are what `npm run bench` uses (README, "Benchmarks"). */
export interface InitSampling {
  /** Samples kept per route bundle. */
  runs: number;
  /** One bare sample before every this many route samples, so the bare bundle gets `routes / bareEvery` samples a round. */
  bareEvery: number;
  /** Rounds of one sample per bundle (the bare one included) run first and thrown away. */
  warmupRounds: number;
}

export const INIT_SAMPLING: InitSampling = { runs: 15, bareEvery: 3, warmupRounds: 1 };

/** One sample of the schedule: the bundle, and whether it is a warm-up sample, run but not kept. */
export interface ScheduledSample {
  id: string;
  warmup: boolean;
}

/**
 * The order of the init samples. Each round takes every route once, in an order shuffled afresh
 * (so no route always follows the same neighbour or sits at the same point of a round), with a
 * bare sample before each group of `bareEvery` routes: the bare median, the denominator of every
 * ratio, rests on several times as many samples as a route's, each taken close in time to the
 * routes it is compared with. Warm-up rounds come first (file cache, CPU clocks, the first
 * processes of a run are slower) and are not kept.
 */
export function initSchedule(routeIds: readonly string[], sampling: InitSampling, random: () => number = Math.random): ScheduledSample[] {
  const schedule: ScheduledSample[] = [];
  for (let round = 0; round < sampling.warmupRounds; round++) {
    for (const id of [BARE_BUNDLE_ID, ...shuffled(routeIds, random)]) schedule.push({ id, warmup: true });
  }
  const every = Math.max(1, Math.floor(sampling.bareEvery));
  for (let round = 0; round < sampling.runs; round++) {
    shuffled(routeIds, random).forEach((id, index) => {
      if (index % every === 0) schedule.push({ id: BARE_BUNDLE_ID, warmup: false });
      schedule.push({ id, warmup: false });
    });
  }
  return schedule;
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/**
 * Samples module init time for each bundle in the order of `initSchedule`: interleaved, so drift
 * in the machine's load over the run spreads over every function (and the bare bundle) instead of
 * landing on one. `bundles` holds the bare bundle and the routes.
 */
export async function measureInitTimes(
  bundles: readonly BuiltBundle[],
  sampling: InitSampling = INIT_SAMPLING,
  /** Routes that run the analytics engine: also sampled with the engine loaded, as their first request loads it. */
  engineRouteIds: readonly string[] = [],
): Promise<InitSamples> {
  const samples: InitSamples = { wallMs: new Map(), cpuMs: new Map() };
  const byId = new Map(bundles.map((bundle) => [bundle.routeId, bundle]));
  if (!byId.has(BARE_BUNDLE_ID)) throw new Error('init samples need the bare bundle next to the routes');
  const engineIds = engineRouteIds.filter((id) => byId.has(id)).map((id) => `${ENGINE_PREFIX}${id}`);
  for (const id of [...byId.keys(), ...engineIds]) {
    samples.wallMs.set(id, []);
    samples.cpuMs.set(id, []);
  }
  const routeIds = [...bundles.map((bundle) => bundle.routeId).filter((id) => id !== BARE_BUNDLE_ID), ...engineIds];
  for (const { id, warmup } of initSchedule(routeIds, sampling)) {
    const engine = id.startsWith(ENGINE_PREFIX);
    const { elapsedMs, cpuMs } = await initTimeOnce(byId.get(engine ? id.slice(ENGINE_PREFIX.length) : id) as BuiltBundle, engine);
    if (warmup) continue;
    samples.wallMs.get(id)?.push(elapsedMs);
    samples.cpuMs.get(id)?.push(cpuMs);
  }
  return samples;
}

async function initTimeOnce(bundle: BuiltBundle, engine = false): Promise<{ elapsedMs: number; cpuMs: number }> {
  try {
    const { stdout } = await execFileAsync(process.execPath, ['-e', CHILD_SCRIPT, bundle.file, ...(engine ? ['engine'] : [])], { env: CHILD_ENV });
    return JSON.parse(stdout) as { elapsedMs: number; cpuMs: number };
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`Loading the ${bundle.routeId} bundle failed${stderr ? `: ${stderr}` : ''}`, { cause: error });
  }
}

export interface InitCase {
  medianMs: number;
  bareMedianMs: number;
  /** The route's median over the bare bundle's median, both from the same interleaved run. */
  ratio: number;
  /**
   * The same on the CPU time the process spent loading (user + system): on a shared machine the
   * wall clock also counts time the loader waited for a core, which this leaves out.
   */
  cpuMedianMs: number;
  bareCpuMedianMs: number;
  cpuRatio: number;
}

/**
 * `initEngine.<routeId>`: a route that runs the analytics engine, its bundle and the engine loaded
 * in a fresh process, beside bare (target: at most bare + 300 ms).
 */
export interface EngineInitCase {
  medianMs: number;
  bareMedianMs: number;
  overBareMs: number;
}

/** `init.<routeId>` figures from samples that hold the bare bundle's next to every route's; `initEngine.<routeId>` for engine samples. */
export function initCases(samples: InitSamples): Record<string, InitCase | EngineInitCase> {
  const bare = samples.wallMs.get(BARE_BUNDLE_ID);
  const bareCpu = samples.cpuMs.get(BARE_BUNDLE_ID);
  if (!bare?.length || !bareCpu?.length) throw new Error('init samples hold no run of the bare bundle');
  const bareMedianMs = median(bare);
  const bareCpuMedianMs = median(bareCpu);
  const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;
  const cases: Record<string, InitCase | EngineInitCase> = {};
  for (const [id, routeSamples] of samples.wallMs) {
    const cpuSamples = samples.cpuMs.get(id) ?? [];
    if (id === BARE_BUNDLE_ID || routeSamples.length === 0 || cpuSamples.length === 0) continue;
    const medianMs = median(routeSamples);
    if (id.startsWith(ENGINE_PREFIX)) {
      cases[`initEngine.${id.slice(ENGINE_PREFIX.length)}`] = { medianMs: round(medianMs, 2), bareMedianMs: round(bareMedianMs, 2), overBareMs: round(medianMs - bareMedianMs, 2) };
      continue;
    }
    const cpuMedianMs = median(cpuSamples);
    cases[`init.${id}`] = {
      medianMs: round(medianMs, 2),
      bareMedianMs: round(bareMedianMs, 2),
      ratio: round(medianMs / bareMedianMs, 3),
      cpuMedianMs: round(cpuMedianMs, 2),
      bareCpuMedianMs: round(bareCpuMedianMs, 2),
      cpuRatio: round(cpuMedianMs / bareCpuMedianMs, 3),
    };
  }
  return cases;
}

function median(samples: readonly number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
