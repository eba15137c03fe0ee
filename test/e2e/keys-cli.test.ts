import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, keysCli, mintKey, runCli, startLocalServer, type RunningServer } from '../support/local-server';

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

describe('create --expires-at', () => {
  it.each([
    ['a day that does not exist', '2030-02-30T00:00:00Z'],
    ['a date that is not ISO 8601', '12/31/2030'],
    ['a date without a time', '2030-12-31'],
    ['a time without an offset', '2030-12-31T00:00:00'],
    ['an instant in the past', '2020-01-01T00:00:00Z'],
  ])('refuses %s with exit 2 and one line on stderr, and mints nothing', async (_, value) => {
    const pixel = `px_expiry_${value.replace(/[^0-9]/g, '')}`;
    const result = await runCli(server, 'bin/keys.ts', 'create', '--pixel', pixel, '--scopes', 'account:read', '--expires-at', value, '--json');
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringContaining(`Invalid expiry '${value}'`)]);
    expect(JSON.parse(await keysCli(server, 'list', '--pixel', pixel, '--json'))).toEqual([]);
  });

  it('accepts an ISO 8601 instant in the future, with any offset, and stores it in UTC', async () => {
    const key = await mintKey(server, 'px_expiry_ok', 'account:read', '--expires-at', '2030-12-31T23:30:00+02:00');
    const listed = JSON.parse(await keysCli(server, 'list', '--pixel', 'px_expiry_ok', '--json')) as Array<{ apiKeyPk: string; expiresAt?: string }>;
    expect(listed).toEqual([expect.objectContaining({ apiKeyPk: key.apiKeyPk, expiresAt: '2030-12-31T21:30:00.000Z' })]);
    const response = await call(server, 'GET', '/accounts/api/account/settings/order', { headers: { 'x-api-key': key.apiKey, 'x-pixel-id': 'px_expiry_ok' } });
    expect(response.status).toBe(200);
  });
});
