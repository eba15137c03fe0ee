/** The scopes a key can carry today (spec section 5.6, plus the read side of account settings). */
export const SCOPES = [
  'analytics:read',
  'dashboards:read',
  'dashboards:write',
  'events:write',
  'account:read',
  'account:write',
  'costs:read',
  'costs:write',
] as const;
export type Scope = (typeof SCOPES)[number];

/** Names minted before May 2026; still accepted on old keys and expanded at request time. */
export const LEGACY_SCOPES = { db_query: 'analytics:read', attribution_query: 'analytics:read' } as const satisfies Record<
  string,
  Scope
>;
export type LegacyScope = keyof typeof LEGACY_SCOPES;

/** A write scope grants its read counterpart, so a key never needs both. */
const IMPLIED: Partial<Record<Scope, readonly Scope[]>> = {
  'dashboards:write': ['dashboards:read'],
  'account:write': ['account:read'],
  'costs:write': ['costs:read'],
};

export function isKnownScope(name: string): name is Scope | LegacyScope {
  return (SCOPES as readonly string[]).includes(name) || Object.hasOwn(LEGACY_SCOPES, name);
}

/** What a key's stored scope names actually grant. Unknown names grant nothing. */
export function effectiveScopes(stored: readonly string[]): ReadonlySet<Scope> {
  const granted = new Set<Scope>();
  for (const name of stored) {
    const scope = Object.hasOwn(LEGACY_SCOPES, name) ? LEGACY_SCOPES[name as LegacyScope] : name;
    if (!(SCOPES as readonly string[]).includes(scope)) continue;
    granted.add(scope as Scope);
    for (const implied of IMPLIED[scope as Scope] ?? []) granted.add(implied);
  }
  return granted;
}
