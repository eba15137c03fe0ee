import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKey, startLocalServer, type RunningServer } from '../support/local-server';

/*
 * A burst far beyond what one process serves within a function's deadline: every answer is one a
 * client can act on (200, 429 over quota, 503 with Retry-After: nothing was done), never a 500.
 */
let server: RunningServer;
beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('1,000 concurrent cheap requests on one key', () => {
  it('are answered 200, 429 or 503 with Retry-After, and never 500', { timeout: 90_000 }, async () => {
    const { apiKey } = await mintKey(server, 'px_burst', 'analytics:read');
    const answers = await Promise.all(
      Array.from({ length: 1_000 }, async () => {
        const response = await fetch(`${server.url}/db-mgmt/api/measures`, { headers: { 'x-api-key': apiKey, 'x-pixel-id': 'px_burst' } });
        const body = (await response.json()) as { message?: string };
        return { status: response.status, retryAfter: response.headers.get('retry-after'), requestId: response.headers.get('x-request-id'), body };
      }),
    );
    const statuses = new Map<number, number>();
    for (const { status } of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    expect([...statuses.keys()].filter((status) => ![200, 429, 503].includes(status))).toEqual([]);
    expect(statuses.get(200)).toBeGreaterThan(0);
    for (const answer of answers.filter(({ status }) => status === 503)) {
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(answer.requestId).toBeTruthy();
      expect(answer.body.message).toMatch(/retry/i);
    }
  });
});
