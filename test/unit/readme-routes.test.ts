import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { routeTable } from '../../lib/routes';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The rows of the README's endpoint table: `| METHOD | `path` | scope | … |`. */
function documentedEndpoints(): Array<{ method: string; path: string; scope: string }> {
  const table = readme.slice(readme.indexOf('### Endpoints'), readme.indexOf('###', readme.indexOf('### Endpoints') + 1));
  return [...table.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| ([^|]+) \|/gm)].map(([, method, path, scope]) => ({
    method: method!,
    path: path!,
    scope: scope!.trim(),
  }));
}

describe('the README API section', () => {
  it('lists exactly the routes of the route table, each with its scope', () => {
    const documented = documentedEndpoints();
    const expected = routeTable.map((route) => ({
      method: route.method,
      path: route.path,
      scope: route.scope === null ? 'any active key' : `\`${route.scope}\``,
    }));
    expect([...documented].sort(byKey)).toEqual([...expected].sort(byKey));
  });
});

const byKey = (a: { method: string; path: string }, b: { method: string; path: string }) =>
  `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`);
