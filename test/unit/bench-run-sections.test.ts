import { describe, expect, it, vi } from 'vitest';
import { runInOrder, type Section, type SectionOutcome } from '../../bench/run-sections';

/**
 * The order of `npm run bench` (bench/run-sections.ts): while the section that hosts preparation
 * (the soak) runs, the later sections prepare one after another; nothing measures until every
 * preparation is done; a section run without the host prepares in its own turn; a preparation
 * that fails becomes its section's failed cases. Sections here are stand-ins that record what
 * happens when, driven by promises the test settles.
 */
type Details = { note?: string };

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
}

const outcome = (id: string): SectionOutcome<Details> => ({ cases: { [id]: { ms: 1 } }, details: {} });
const required = { 'host.case': ['ms'], 'a.case': ['ms'], 'b.case': ['ms'], 'c.case': ['ms'] };

function stage(events: string[]) {
  const hostDone = deferred();
  const preparedA = deferred();
  const sections: Array<Section<Details>> = [
    {
      name: 'host',
      prefixes: ['host.'],
      hostsPreparation: true,
      measure: async () => {
        events.push('host measures');
        await hostDone.promise;
        events.push('host done');
        return outcome('host.case');
      },
    },
    {
      name: 'a',
      prefixes: ['a.'],
      prepare: async () => {
        events.push('a prepares');
        await preparedA.promise;
        events.push('a prepared');
        return async () => (events.push('a measures'), outcome('a.case'));
      },
    },
    { name: 'b', prefixes: ['b.'], measure: async () => (events.push('b measures'), outcome('b.case')) },
    {
      name: 'c',
      prefixes: ['c.'],
      prepare: async () => {
        events.push('c prepares');
        return async () => (events.push('c measures'), outcome('c.case'));
      },
    },
  ];
  return { sections, hostDone, preparedA };
}

const quiet = () => undefined;

describe('runInOrder', () => {
  it('prepares the later sections one after another while the host runs, and measures none until all are prepared', async () => {
    const events: string[] = [];
    const { sections, hostDone, preparedA } = stage(events);
    const outcomes: string[] = [];
    const running = runInOrder(sections, quiet, (section, result, crashed) => outcomes.push(`${section.name}:${Object.keys(result.cases).join()}:${crashed}`), required);
    await vi.waitFor(() => expect(events).toEqual(['a prepares', 'host measures']));
    // The host ends first; the next section still waits for a's preparation, and c's, which follows it.
    hostDone.resolve();
    await vi.waitFor(() => expect(events).toContain('host done'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).not.toContain('b measures');
    preparedA.resolve();
    const times = await running;
    expect(events).toEqual(['a prepares', 'host measures', 'host done', 'a prepared', 'c prepares', 'a measures', 'b measures', 'c measures']);
    expect(outcomes).toEqual(['host:host.case:false', 'a:a.case:false', 'b:b.case:false', 'c:c.case:false']);
    expect(Object.keys(times.sectionSeconds)).toEqual(['host', 'a', 'b', 'c']);
    expect(times.preparation?.during).toBe('host');
    expect(Object.keys(times.preparation?.seconds ?? {})).toEqual(['a', 'c']);
    expect(times.preparation?.waitedSeconds).toBeGreaterThanOrEqual(0);
  });

  it('without the host, prepares each section in its own turn', async () => {
    const events: string[] = [];
    const { sections, preparedA } = stage(events);
    preparedA.resolve();
    const times = await runInOrder(sections.slice(1), quiet, () => undefined, required);
    expect(events).toEqual(['a prepares', 'a prepared', 'a measures', 'b measures', 'c prepares', 'c measures']);
    expect(times.preparation).toBeUndefined();
  });

  it('reports a preparation that failed during the host as its section’s failed cases, in its turn, and runs the others', async () => {
    const events: string[] = [];
    const { sections, hostDone } = stage(events);
    hostDone.resolve();
    sections[1] = { name: 'a', prefixes: ['a.'], prepare: async () => Promise.reject(new Error('the store did not start')) };
    const outcomes: Array<{ name: string; failed?: Record<string, string>; crashed: boolean }> = [];
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await runInOrder(sections, quiet, (section, result, crashed) => outcomes.push({ name: section.name, failed: result.failed, crashed }), required);
    } finally {
      errors.mockRestore();
    }
    expect(outcomes.map(({ name, crashed }) => [name, crashed])).toEqual([['host', false], ['a', true], ['b', false], ['c', false]]);
    expect(outcomes[1]!.failed).toEqual({ 'a.case': 'the a section failed: the store did not start' });
    expect(events).toContain('c measures');
  });
});
