import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { spawnLocalServer, type SpawnedServer } from '../lib/local/spawned-server';
import { SCOPES } from '../shared/auth/scopes';
import { benchRateLimitArgs } from './bench-keys';
import { formatTable } from './report';
import { mergeSectionIntoResults, resultsFilePath } from './results-file';
import type { CaseFigures } from './results-schema';

/**
 * Whether the local server's memory stays bounded under a long, mixed load: order settings read
 * and replaced, dashboard views created, read, renamed and deleted, the demo pixel's generated ads
 * listed over many ranges, time zones and measures, and batches of events ingested, over a few
 * connections for `BENCH_SOAK_SECONDS` (default 600). The server's RSS is sampled every second:
 * at start (ready, idle), after the warm-up (the first fifth), its peak, and at the end (after the
 * load stops and the server idles for a few seconds). Bounded means the end is within 20 % of
 * the post-warm-up level: caches fill during the warm-up and must not keep growing after it.
 */
const CONNECTIONS = 4;
const IDLE_AFTER_MS = 10_000;
const MAX_REQUESTS = 2_000_000;

export interface SoakResult {
  seconds: number;
  requests: number;
  /** Requests by status, to show the load was what it claims (mostly 200s). */
  statuses: Record<string, number>;
  rssStartMb: number;
  rssWarmMb: number;
  rssPeakMb: number;
  rssEndMb: number;
  /** rssEndMb ≤ 1.2 × rssWarmMb. */
  bounded: boolean;
}

export async function measureSoak(options: { projectRoot: string; log: (line: string) => void }): Promise<SoakResult> {
  const seconds = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
  if (!Number.isFinite(seconds) || seconds < 10) throw new Error('BENCH_SOAK_SECONDS must be a number ≥ 10');
  options.log(`Soak: ${seconds} s of mixed load through the local server over ${CONNECTIONS} connections, RSS sampled every second...`);

  const server = await spawnLocalServer({ projectRoot: options.projectRoot });
  try {
    // A key of its own, as the demo key's default quota would turn most of the load into 429s.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'bin/keys.ts', 'create', '--pixel', 'px_demo', '--scopes', SCOPES.join(','), '--name', 'soak', '--json', ...benchRateLimitArgs],
      { cwd: options.projectRoot, env: server.env },
    );
    const { apiKey } = JSON.parse(stdout.trim()) as { apiKey: string };
    const rss = () => residentMegabytes(server.pid);
    const rssStartMb = rss();
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(rss()), 1_000);

    const statuses: Record<string, number> = {};
    const load = new MixedLoad(server, apiKey);
    const deadline = performance.now() + seconds * 1000;
    const warmUntil = performance.now() + (seconds * 1000) / 5;
    let rssWarmMb = 0;
    let requests = 0;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async (_, worker) => {
        while (performance.now() < deadline && requests < MAX_REQUESTS) {
          const status = await load.next(worker);
          statuses[status] = (statuses[status] ?? 0) + 1;
          requests++;
          if (rssWarmMb === 0 && performance.now() >= warmUntil) rssWarmMb = rss();
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, IDLE_AFTER_MS));
    clearInterval(sampler);
    const rssEndMb = rss();
    const rssPeakMb = Math.max(rssStartMb, rssEndMb, ...samples);
    return { seconds, requests, statuses, rssStartMb, rssWarmMb, rssPeakMb, rssEndMb, bounded: rssEndMb <= rssWarmMb * 1.2 };
  } finally {
    await server.stop();
    rmSync(server.dataDir, { recursive: true, force: true });
  }
}

export function printSoak(result: SoakResult, log: (line?: string) => void): void {
  log();
  log(`Soak: ${result.seconds} s of mixed load through the local server, ${result.requests.toLocaleString('en-US')} requests (${JSON.stringify(result.statuses)})`);
  log(
    formatTable(
      ['server RSS', 'MB'],
      [
        ['at start', result.rssStartMb.toFixed(1)],
        ['after warm-up', result.rssWarmMb.toFixed(1)],
        ['peak', result.rssPeakMb.toFixed(1)],
        [`end (${IDLE_AFTER_MS / 1000} s idle)`, result.rssEndMb.toFixed(1)],
      ],
    ),
  );
  log(`End within 20 % of the post-warm-up level: ${result.bounded ? 'yes' : 'NO'} (${((result.rssEndMb / result.rssWarmMb - 1) * 100).toFixed(1)} %)`);
}

function residentMegabytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]);
  return Math.round((kb / 1024) * 10) / 10;
}

const TIME_ZONES = ['UTC', 'Europe/Paris', 'America/New_York', 'Asia/Tokyo', 'Australia/Sydney', 'America/Los_Angeles', 'Asia/Kolkata', 'Europe/London'];
const CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD', 'JPY'];
const MEASURES = ['channel.spend', 'channel.roas', 'channel.ctr', 'channel.impressions', 'channel.clicks', 'channel.conversions'];

/** One request at a time per worker, cycling through the mix; each answers with its HTTP status. */
class MixedLoad {
  private step = 0;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly server: SpawnedServer,
    apiKey: string,
  ) {
    this.headers = { 'content-type': 'application/json', 'x-api-key': apiKey, 'x-pixel-id': 'px_demo' };
  }

  async next(worker: number): Promise<number> {
    const n = this.step++;
    switch (n % 6) {
      case 0:
        return this.send('GET', '/accounts/api/account/settings/order');
      case 1:
        return this.send('PUT', '/accounts/api/account/settings/order', orderSettings(n, worker));
      case 2:
      case 3:
        return this.send('POST', '/db-mgmt/api/query-ads', queryAds(n));
      case 4:
        return this.dashboardCycle(n);
      default:
        return this.send('POST', '/tr/api/events', events(n));
    }
  }

  private async dashboardCycle(n: number): Promise<number> {
    const created = await this.request('POST', '/accounts/api/dashboard/views/from-preset', {
      name: `Soak ${n}`,
      widgets: MEASURES.slice(0, 1 + (n % MEASURES.length)).map((measure) => ({ measure })),
    });
    if (created.status !== 200) return created.status;
    const id = (created.body as { dashboardView: { dashboardViewId: string } }).dashboardView.dashboardViewId;
    await this.request('GET', `/accounts/api/dashboard/views/${id}`);
    await this.request('PATCH', `/accounts/api/dashboard/views/${id}`, { name: `Soak ${n} renamed` });
    return (await this.request('DELETE', `/accounts/api/dashboard/views/${id}`)).status;
  }

  private async send(method: string, path: string, body?: unknown): Promise<number> {
    return (await this.request(method, path, body)).status;
  }

  private async request(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
    const response = await fetch(this.server.url + path, { method, headers: this.headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, body: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  }
}

function orderSettings(n: number, worker: number) {
  return {
    countPendingOrders: n % 2 === 0,
    countVoidedOrders: false,
    refundDateAttribution: n % 3 === 0 ? 'order_date' : 'refund_date',
    exclusionFilters: Array.from({ length: 1 + (n % 5) }, (_, i) => ({
      name: `Filter ${worker}-${i}`,
      enabled: true,
      conditionGroups: [{ logic: 'and', conditions: [{ field: 'sourceName', operator: 'equals', value: `pos-${n % 50}` }] }],
    })),
  };
}

function queryAds(n: number) {
  const endDay = 1 + (n % 28);
  return {
    pixelId: 'px_demo',
    limit: 10 + (n % 50),
    offset: n % 20,
    measures: MEASURES.slice(0, 1 + (n % MEASURES.length)),
    dateRange: { start: '2026-10-01', end: `2026-11-${String(endDay).padStart(2, '0')}` },
    timezone: TIME_ZONES[n % TIME_ZONES.length],
    currency: CURRENCIES[n % CURRENCIES.length],
  };
}

function events(n: number) {
  return {
    events: Array.from({ length: 20 }, (_, i) => ({
      name: i % 10 === 9 ? 'purchase' : 'page_view',
      eventId: `soak-${n}-${i}`,
      page: { url: `https://shop.example/products/${i}?n=${n}` },
      ...(i % 10 === 9 ? { data: { orderId: `soak-${n}-${i}`, value: 20 + i, currency: 'USD' } } : {}),
    })),
  };
}

/** The figures results.json compares across runs (`soak`); `bounded` stays in the detail section. */
export function soakCases(result: SoakResult): Record<string, CaseFigures> {
  const { rssStartMb, rssWarmMb, rssPeakMb, rssEndMb, seconds, requests } = result;
  return { soak: { rssStartMb, rssWarmMb, rssPeakMb, rssEndMb, seconds, requests } };
}

/** `npm run bench:soak`: this case alone, merged into the results file as `soak`. */
if (process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url) {
  const projectRoot = fileURLToPath(new URL('..', import.meta.url));
  const log = (line = '') => process.stdout.write(`${line}\n`);
  const result = await measureSoak({ projectRoot, log });
  printSoak(result, log);
  const resultsFile = resultsFilePath(projectRoot);
  mergeSectionIntoResults(resultsFile, { command: 'bench:soak', owns: (id) => id === 'soak', cases: soakCases(result), details: { soak: result } });
  log(`Wrote ${resultsFile}`);
}
