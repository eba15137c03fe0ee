import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, mintKey, startLocalServer, type RunningServer } from '../support/local-server';

let server: RunningServer;
beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(async () => {
  await server?.stop();
});

/** The README's command lines that ask the keys CLI for JSON, exactly as a user would copy them. */
const readmeJsonCommands = readFileSync('README.md', 'utf8')
  .split('\n')
  .filter((line) => /^npm run (--silent|-s) keys -- .*--json/.test(line));

function shell(command: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', command], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** jq is what the README pipes into; a machine without it still checks that the CLI prints one JSON object. */
const hasJq = spawnSync('jq', ['--version']).status === 0;

describe("the README's keys commands", () => {
  it('include one that pipes JSON to a parser', () => {
    expect(readmeJsonCommands.some((line) => line.includes('| jq'))).toBe(true);
  });

  it.each(readmeJsonCommands)('`%s` prints exactly one JSON object, and the whole pipeline works', async (command) => {
    const [cliPart, ...pipeline] = command.split(' | ');
    const cli = await shell(cliPart!, server.env);
    expect(cli.code).toBe(0);
    expect(cli.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(cli.stdout)).toEqual({ apiKey: expect.stringMatching(/^upstack_/), apiKeyPk: expect.any(String), pixelId: 'px_demo', scopes: ['analytics:read'] });

    if (pipeline.length > 0 && hasJq) {
      const whole = await shell(command, server.env);
      expect(whole.code).toBe(0);
      expect(whole.stdout.trim()).toMatch(/^upstack_[A-Za-z0-9_-]{43}$/);
    }
  });
});

describe('a key minted with --rate-limit, through real HTTP', () => {
  it('answers exactly k of N + k concurrent requests with 429, each with Retry-After and the RateLimit fields', async () => {
    const key = await mintKey(server, 'px_quota', 'account:read', '--rate-limit', '6/1m');
    const headers = { 'x-api-key': key.apiKey, 'x-pixel-id': 'px_quota' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(server, 'GET', '/accounts/api/account/settings/order', { headers })));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(6);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(4);
    for (const answer of refused) {
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(answer.headers.get('ratelimit-policy')).toBe('"api";q=6;w=60');
      expect(answer.headers.get('ratelimit')).toMatch(/^"api";r=0;t=\d+$/);
    }
  });
});
