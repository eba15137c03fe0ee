import { requiredCases, type CaseFigures } from './results-schema';

/** What one section contributes to the results file: its cases, the ones it could not measure, its detail sections. */
export interface SectionOutcome<Details extends object> {
  cases: Record<string, CaseFigures>;
  failed?: Record<string, string>;
  details: Partial<Details>;
}

/** A section's measurement, once what it measures on is ready. */
export type SectionMeasure<Details extends object> = () => Promise<SectionOutcome<Details>>;

/**
 * A section of `npm run bench`, with the case-id prefixes it reports. It either measures at once
 * (`measure`) or first prepares what it measures on (`prepare`: bundles, a generated dataset in a
 * live store process) and resolves to its measurement. A section that `hostsPreparation` (the
 * soak) runs while the later sections prepare.
 */
export type Section<Details extends object> = { name: string; prefixes: readonly string[]; hostsPreparation?: true } & (
  | { measure: SectionMeasure<Details> }
  | { prepare: () => Promise<SectionMeasure<Details>> }
);

export const ownsCase = (section: Pick<Section<object>, 'prefixes'>, id: string) => section.prefixes.some((prefix) => id.startsWith(prefix));

export const secondsSince = (started: number) => Math.round((performance.now() - started) / 100) / 10;

const prepareOf = <D extends object>(section: Section<D>): (() => Promise<SectionMeasure<D>>) => ('prepare' in section ? section.prepare : async () => section.measure);

/**
 * Runs one section: its preparation (or the one made ahead of it), then its measurement. A
 * section that throws in either reports every required case of its own as failed, with the
 * error, so the results file still accounts for each case and the other sections still run.
 */
export async function runSection<D extends object>(
  section: Section<D>,
  preparedAhead?: Promise<SectionMeasure<D>>,
  required: Record<string, unknown> = requiredCases(),
): Promise<{ outcome: SectionOutcome<D>; crashed: boolean }> {
  try {
    const measure = await (preparedAhead ?? prepareOf(section)());
    return { outcome: await measure(), crashed: false };
  } catch (error) {
    console.error(`Benchmark section ${section.name} failed:`, error);
    const reason = `the ${section.name} section failed: ${(error as Error).message.slice(0, 300)}`;
    const failed = Object.fromEntries(Object.keys(required).filter((id) => ownsCase(section, id)).map((id) => [id, reason]));
    return { outcome: { cases: {}, failed, details: {} }, crashed: true };
  }
}

/** The timing `results.json` keeps in `run`, besides the whole run's. */
export interface RunTimes {
  /** Wall seconds of each section in its turn: its measurement, with its preparation when that was not made during the soak. */
  sectionSeconds: Record<string, number>;
  /**
   * The preparations made while the soak ran (`during`), one after another: wall seconds of
   * each, and how long the next section waited for them after the soak had ended.
   */
  preparation?: { during: string; seconds: Record<string, number>; waitedSeconds: number };
}

/**
 * Runs `selected` in their order, handing each outcome to `done`. While a section that
 * `hostsPreparation` runs, every later selected section that has a `prepare` prepares, one after
 * another (the soak already keeps both cores busy); the next section starts only when all of them
 * are ready, so every measurement after it has the machine to itself (the prepared processes wait
 * idle). A preparation that fails is reported by its section, in its turn (`runSection`).
 */
export async function runInOrder<D extends object>(
  selected: ReadonlyArray<Section<D>>,
  log: (line?: string) => void,
  done: (section: Section<D>, outcome: SectionOutcome<D>, crashed: boolean) => void,
  required?: Record<string, unknown>,
): Promise<RunTimes> {
  const times: RunTimes = { sectionSeconds: {} };
  const preparedAhead = new Map<Section<D>, Promise<SectionMeasure<D>>>();
  for (const [index, section] of selected.entries()) {
    log();
    const started = performance.now();
    const later = section.hostsPreparation ? selected.slice(index + 1).filter((next) => 'prepare' in next) : [];
    const preparing = later.length > 0 ? prepareInTurn(later, preparedAhead) : undefined;
    const { outcome, crashed } = await runSection(section, preparedAhead.get(section), required);
    times.sectionSeconds[section.name] = secondsSince(started);
    done(section, outcome, crashed);
    if (preparing) {
      const waitStarted = performance.now();
      const seconds = await preparing;
      times.preparation = { during: section.name, seconds, waitedSeconds: secondsSince(waitStarted) };
      log(`Prepared during the ${section.name}: ${Object.entries(seconds).map(([name, s]) => `${name} ${s.toFixed(0)} s`).join(', ')}; waited ${times.preparation.waitedSeconds.toFixed(0)} s after it`);
    }
  }
  return times;
}

/** Prepares `sections` one after another, each one's measurement (or failure) into `into`; resolves to each preparation's wall seconds. */
async function prepareInTurn<D extends object>(sections: ReadonlyArray<Section<D>>, into: Map<Section<D>, Promise<SectionMeasure<D>>>): Promise<Record<string, number>> {
  const seconds: Record<string, number> = {};
  for (const section of sections) {
    const started = performance.now();
    const measure = prepareOf(section)();
    into.set(section, measure);
    // Handled here so a failure is not unhandled meanwhile; its section reports it.
    await measure.catch(() => undefined);
    seconds[section.name] = secondsSince(started);
  }
  return seconds;
}
