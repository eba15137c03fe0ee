import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDemoAds, generateDemoFxRates } from '../../lib/local/demo-ads';
import { toAdImportInput } from '../../shared/schemas/ad-import';
import { hourRow, validAdInput } from '../support/ad-fixtures';
import { runCli, startLocalServer, type RunningServer } from '../support/local-server';

let server: RunningServer;
const dir = mkdtempSync(join(tmpdir(), 'import-cli-'));

beforeAll(async () => {
  server = await startLocalServer();
});
afterAll(async () => {
  await server?.stop();
});

/** Runs `npm run import-ads`'s program against the server's store, as an operator would. */
const importAds = (...args: string[]) => runCli(server, 'bin/import-ads.ts', ...args);

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** The ad ids the server lists for a pixel (POST /db-mgmt/api/query-ads with a key minted by the keys CLI). */
async function storedAdIds(pixelId: string): Promise<string[]> {
  const minted = await runCli(server, 'bin/keys.ts', 'create', '--pixel', pixelId, '--scopes', 'analytics:read', '--json');
  const { apiKey } = JSON.parse(minted.stdout) as { apiKey: string };
  const response = await fetch(`${server.url}/db-mgmt/api/query-ads`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'x-pixel-id': pixelId, 'content-type': 'application/json' },
    body: JSON.stringify({ pixelId, limit: 500 }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { rows: Array<{ basicDetails: { adId: string } }> }).rows.map((row) => row.basicDetails.adId);
}

const stderrLines = (stderr: string) => stderr.split('\n').filter((line) => line.startsWith('Rejected '));

describe('npm run import-ads', () => {
  it('imports a .json file into the running server store, prints one summary line, exits 0', async () => {
    const ads = [...generateDemoAds({ ads: 4, days: 2, end: new Date('2026-03-02T23:00:00Z'), seed: 1 })];
    const path = file(
      'ads.json',
      JSON.stringify({ fxRates: generateDemoFxRates({ days: 2, end: new Date('2026-03-02T23:00:00Z'), seed: 1 }), ads: ads.map(toAdImportInput) }),
    );
    const hourlyRows = ads.reduce((sum, ad) => sum + ad.hourly!.length, 0);

    const result = await importAds('--pixel', 'px_cli', '--file', path);

    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`Imported 4 ads, ${hourlyRows} hourly rows, 2 exchange-rate dates into pixel px_cli\n`);
    expect(stderrLines(result.stderr)).toEqual([]);
    expect((await storedAdIds('px_cli')).sort()).toEqual(ads.map((ad) => ad.adId).sort());
  });

  it('imports the valid lines of an .ndjson file, reports each rejected line on stderr, exits 1', async () => {
    const path = file(
      'ads.ndjson',
      [
        JSON.stringify(validAdInput({ adId: 'nd-1', hourly: [hourRow('2026-03-01T10:00:00Z')] })),
        JSON.stringify({ fxRates: [{ date: '2026-03-01', rates: { USD: 1, EUR: 0.9 } }] }),
        JSON.stringify(validAdInput({ adId: 'nd-bad', currency: 'euro' })),
        'not json',
        '',
        JSON.stringify(validAdInput({ adId: 'nd-2', hourly: undefined })),
      ].join('\n'),
    );

    const result = await importAds('--pixel', 'px_cli_nd', '--file', path);

    expect(result.code).toBe(1);
    expect(result.stdout).toBe('Imported 2 ads, 1 hourly row, 1 exchange-rate date into pixel px_cli_nd (2 records rejected)\n');
    expect(stderrLines(result.stderr)).toEqual([
      'Rejected line 3: currency: Must be an ISO 4217 currency code in capitals, like USD',
      expect.stringMatching(/^Rejected line 4: Not valid JSON: /),
    ]);
    expect((await storedAdIds('px_cli_nd')).sort()).toEqual(['nd-1', 'nd-2']);
  });

  it('a second import of an ad replaces its metadata, and the server lists the new one', async () => {
    const path = (name: string, adName: string) => file(name, JSON.stringify(validAdInput({ adId: 're-1', adName })));
    expect((await importAds('--pixel', 'px_cli_again', '--file', path('first.ndjson', 'First name'))).code).toBe(0);
    expect((await importAds('--pixel', 'px_cli_again', '--file', path('second.ndjson', 'Second name'))).code).toBe(0);
    expect(await storedAdIds('px_cli_again')).toEqual(['re-1']);
  });

  it('exits 1 and stores nothing when the document as a whole is unusable', async () => {
    const result = await importAds('--pixel', 'px_cli_bad', '--file', file('bad.json', '{"ads": {}}'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Nothing imported: ');
    expect(result.stdout).toBe('');
    expect(await storedAdIds('px_cli_bad')).toEqual([]);
  });

  it.each([
    ['no --pixel', ['--file', 'x.json'], '--pixel is required'],
    ['no --file', ['--pixel', 'px_cli'], '--file is required'],
    ['a malformed pixel id', ['--pixel', 'px cli', '--file', 'x.json'], "'px cli' is not a valid pixel id"],
    ['an unsupported file type', ['--pixel', 'px_cli', '--file', 'ads.csv'], 'unsupported file type'],
    ['a missing file', ['--pixel', 'px_cli', '--file', '/nonexistent/ads.ndjson'], 'no such file'],
    ['an unknown option', ['--pixel', 'px_cli', '--file', 'x.json', '--dry-run'], "Unknown option '--dry-run'"],
    ['the retired --rebuild-rollups', ['--pixel', 'px_cli', '--rebuild-rollups'], "Unknown option '--rebuild-rollups'"],
    ['--bucket without --table', ['--pixel', 'px_cli', '--file', 'x.json', '--bucket', 'analytics'], '--table and --bucket go together'],
    ['--table without --bucket', ['--pixel', 'px_cli', '--file', 'x.json', '--table', 'merchant-analytics'], '--table and --bucket go together'],
  ])('exits 2 with the usage on %s', async (_, args, message) => {
    const result = await importAds(...args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).toContain('Usage:');
  });
});
