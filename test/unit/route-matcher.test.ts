import { describe, expect, it } from 'vitest';
import { matchRoute } from '../../lib/local/route-matcher';
import type { RouteDefinition } from '../../lib/routes';

const route = (method: RouteDefinition['method'], path: string): RouteDefinition => ({
  method,
  path,
  handler: 'x.ts',
  scope: null,
  writes: method !== 'GET',
  summary: '',
  capabilities: { reads: [], writes: [], publishes: false },
});
const routes = [
  route('GET', '/views'),
  route('GET', '/views/{id}'),
  route('DELETE', '/views/{id}'),
  route('POST', '/views/from-preset'),
  route('POST', '/views/{id}/copy'),
];

describe('local route matching', () => {
  it('prefers a literal segment over a path parameter, as API Gateway does', () => {
    expect(matchRoute(routes, 'POST', '/views/from-preset')).toMatchObject({ kind: 'found', route: { path: '/views/from-preset' } });
  });

  it('extracts and decodes path parameters', () => {
    expect(matchRoute(routes, 'GET', '/views/a%20b')).toMatchObject({ kind: 'found', pathParameters: { id: 'a b' } });
    expect(matchRoute(routes, 'POST', '/views/v1/copy')).toMatchObject({ kind: 'found', pathParameters: { id: 'v1' } });
  });

  it('answers 405 with the allowed methods when the path exists under other methods', () => {
    expect(matchRoute(routes, 'PUT', '/views/v1')).toEqual({ kind: 'method-not-allowed', path: '/views/{id}', allowedMethods: ['GET', 'DELETE'] });
  });

  it('answers not-found for unknown paths, empty parameters and extra segments', () => {
    expect(matchRoute(routes, 'GET', '/nope')).toEqual({ kind: 'not-found' });
    expect(matchRoute(routes, 'GET', '/views/')).toEqual({ kind: 'not-found' });
    expect(matchRoute(routes, 'GET', '/views/a/b/c')).toEqual({ kind: 'not-found' });
  });
});
