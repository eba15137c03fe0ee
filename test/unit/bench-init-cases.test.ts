import { describe, expect, it } from 'vitest';
import { BARE_BUNDLE_ID, initCases } from '../../bench/init-time';

describe('init cases', () => {
  it('reports each route against the median of the bare bundle sampled in the same run', () => {
    const samples = new Map([
      [BARE_BUNDLE_ID, [40, 50, 60]],
      ['getAccount', [55, 60, 65, 70]],
    ]);
    expect(initCases(samples)).toEqual({ 'init.getAccount': { medianMs: 62.5, bareMedianMs: 50, ratio: 1.25 } });
  });

  it('refuses samples without the bare bundle, since a ratio needs its baseline', () => {
    expect(() => initCases(new Map([['getAccount', [1]]]))).toThrow(/bare/);
  });
});
