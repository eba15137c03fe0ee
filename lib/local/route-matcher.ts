import type { RouteDefinition } from '../routes';

export type RouteMatch<R extends RouteDefinition> =
  | { kind: 'found'; route: R; pathParameters: Record<string, string> }
  | { kind: 'method-not-allowed'; path: string; allowedMethods: string[] }
  | { kind: 'not-found' };

/**
 * Matches a request to a route the way API Gateway HTTP APIs do: segment by segment, `{name}`
 * matching one non-empty segment, and the most specific route (fewest parameters) winning, so
 * `/views/from-preset` beats `/views/{id}`.
 */
export function matchRoute<R extends RouteDefinition>(routes: readonly R[], method: string, path: string): RouteMatch<R> {
  const segments = path.split('/');
  const candidates = routes
    .map((route) => ({ route, pathParameters: matchPath(route.path, segments) }))
    .filter((c): c is { route: R; pathParameters: Record<string, string> } => c.pathParameters !== undefined)
    .sort((a, b) => Object.keys(a.pathParameters).length - Object.keys(b.pathParameters).length);
  if (candidates.length === 0) return { kind: 'not-found' };
  const found = candidates.find((c) => c.route.method === method);
  if (found) return { kind: 'found', ...found };
  return { kind: 'method-not-allowed', path: (candidates[0] as { route: R }).route.path, allowedMethods: [...new Set(candidates.map((c) => c.route.method))] };
}

function matchPath(template: string, segments: string[]): Record<string, string> | undefined {
  const parts = template.split('/');
  if (parts.length !== segments.length) return undefined;
  const parameters: Record<string, string> = {};
  for (const [i, part] of parts.entries()) {
    const segment = segments[i] as string;
    const name = /^\{(\w+)\}$/.exec(part)?.[1];
    if (name) {
      if (segment === '') return undefined;
      try {
        parameters[name] = decodeURIComponent(segment);
      } catch {
        return undefined;
      }
    } else if (part !== segment) {
      return undefined;
    }
  }
  return parameters;
}
