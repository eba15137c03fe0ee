import { describe, expect, it } from 'vitest';
import { effectiveScopes } from '../../shared/auth/scopes';

describe('effective scopes', () => {
  it.each([
    [['db_query'], ['analytics:read']],
    [['attribution_query'], ['analytics:read']],
    [['dashboards:write'], ['dashboards:write', 'dashboards:read']],
    [['account:write'], ['account:write', 'account:read']],
    [['costs:write'], ['costs:write', 'costs:read']],
    [['costs:read'], ['costs:read']],
    [['events:write'], ['events:write']],
    [['dashboards:read'], ['dashboards:read']],
    [['made:up', 'analytics:read'], ['analytics:read']],
  ])('%j grants %j and nothing more', (stored, granted) => {
    expect([...effectiveScopes(stored)].sort()).toEqual([...granted].sort());
  });

  it('does not let a read scope imply its write scope', () => {
    expect(effectiveScopes(['account:read']).has('account:write')).toBe(false);
    expect(effectiveScopes(['dashboards:read']).has('dashboards:write')).toBe(false);
    expect(effectiveScopes(['costs:read']).has('costs:write')).toBe(false);
  });
});
