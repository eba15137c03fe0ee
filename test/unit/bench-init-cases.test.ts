import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BARE_BUNDLE_ID, initCases, initSchedule } from '../../bench/init-time';

describe('init cases', () => {
  it('reports each route against the median of the bare bundle sampled in the same run', () => {
    const samples = {
      wallMs: new Map([
        [BARE_BUNDLE_ID, [40, 50, 60]],
        ['getAccount', [55, 60, 65, 70]],
      ]),
      cpuMs: new Map([
        [BARE_BUNDLE_ID, [30, 40, 50]],
        ['getAccount', [44, 46]],
      ]),
    };
    expect(initCases(samples)).toEqual({
      'init.getAccount': { medianMs: 62.5, bareMedianMs: 50, ratio: 1.25, cpuMedianMs: 45, bareCpuMedianMs: 40, cpuRatio: 1.125 },
    });
  });

  it('reports a route sampled with the analytics engine loaded by how much it takes over bare', () => {
    const samples = {
      wallMs: new Map([
        [BARE_BUNDLE_ID, [40, 50, 60]],
        ['engine:query', [140, 150, 170]],
      ]),
      cpuMs: new Map([
        [BARE_BUNDLE_ID, [30, 40, 50]],
        ['engine:query', [120, 130, 140]],
      ]),
    };
    expect(initCases(samples)).toEqual({ 'initEngine.query': { medianMs: 150, bareMedianMs: 50, overBareMs: 100 } });
  });

  it('refuses samples without the bare bundle, since a ratio needs its baseline', () => {
    expect(() => initCases({ wallMs: new Map([['getAccount', [1]]]), cpuMs: new Map([['getAccount', [1]]]) })).toThrow(/bare/);
  });
});

describe('init schedule', () => {
  it('takes every route `runs` times, the bare bundle before each group of `bareEvery` routes, after warm-up rounds it does not keep', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}$/), { minLength: 1, maxLength: 25 }).filter((ids) => !ids.includes(BARE_BUNDLE_ID)),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 2 }),
        fc.integer(),
        (routeIds, runs, bareEvery, warmupRounds, seed) => {
          let state = seed;
          const random = () => ((state = (Math.imul(state, 1_103_515_245) + 12_345) | 0) >>> 0) / 2 ** 32;
          const schedule = initSchedule(routeIds, { runs, bareEvery, warmupRounds }, random);
          const warmup = schedule.filter((sample) => sample.warmup);
          const kept = schedule.filter((sample) => !sample.warmup);
          // Warm-up first, one sample of every bundle a round.
          expect(schedule.slice(0, warmup.length).every((sample) => sample.warmup)).toBe(true);
          expect(warmup.map((sample) => sample.id).sort()).toEqual(
            Array.from({ length: warmupRounds }, () => [BARE_BUNDLE_ID, ...routeIds]).flat().sort(),
          );
          for (const id of routeIds) expect(kept.filter((sample) => sample.id === id)).toHaveLength(runs);
          expect(kept.filter((sample) => sample.id === BARE_BUNDLE_ID)).toHaveLength(runs * Math.ceil(routeIds.length / bareEvery));
          // Never more than `bareEvery` route samples without a bare one, and each round holds every route once.
          let sinceBare = 0;
          for (const sample of kept) {
            sinceBare = sample.id === BARE_BUNDLE_ID ? 0 : sinceBare + 1;
            expect(sinceBare).toBeLessThanOrEqual(bareEvery);
          }
          const routesOnly = kept.filter((sample) => sample.id !== BARE_BUNDLE_ID).map((sample) => sample.id);
          for (let round = 0; round < runs; round++) {
            expect(routesOnly.slice(round * routeIds.length, (round + 1) * routeIds.length).sort()).toEqual([...routeIds].sort());
          }
        },
      ),
    );
  });
});
