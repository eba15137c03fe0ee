import { describe, expect, it } from 'vitest';
import { BARE_BUNDLE_ID, initCases } from '../../bench/init-time';

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

  it('refuses samples without the bare bundle, since a ratio needs its baseline', () => {
    expect(() => initCases({ wallMs: new Map([['getAccount', [1]]]), cpuMs: new Map([['getAccount', [1]]]) })).toThrow(/bare/);
  });
});
