import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { routeTable } from '../../lib/routes';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The libraries a cold start must not evaluate, and those loaded since the last reset. */
const LIBRARIES = ['zod', 'zod/mini', '@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb', '@aws-sdk/client-eventbridge', '@aws-lambda-powertools/tracer'];
const loaded = new Set<string>();

beforeEach(() => {
  vi.resetModules();
  loaded.clear();
  // Registered anew for every test, so each fresh import of a library records itself again.
  for (const library of LIBRARIES) {
    vi.doMock(library, async (importOriginal) => {
      loaded.add(library);
      return importOriginal();
    });
  }
});

/**
 * A function's module init evaluates its request pipeline only: validation, the store, the bus
 * and the tracer load at the first request (README, "Benchmarks"). One static import of a schema
 * or a repository in a handler would bring them back into every cold start.
 */
describe('loading a handler module', () => {
  it('detects a library a module loads (the check itself works)', async () => {
    await import('../../shared/schemas/account');
    await import('../../shared/schemas/dashboard-view');
    await import('../../shared/store/dynamo-client');
    expect(loaded).toContain('zod/mini');
    expect(loaded).toContain('@aws-sdk/lib-dynamodb');
  });

  it.each(routeTable.map((route) => [route.id, route.handler]))('%s evaluates neither zod, the AWS SDK nor the tracer', async (_id, handler) => {
    const module = (await import(resolve(PROJECT_ROOT, handler))) as { handler?: unknown };
    expect(typeof module.handler).toBe('function');
    expect([...loaded]).toEqual([]);
  });
});
