import { beforeEach, describe, expect, it } from 'vitest';
import { DEMO_PIXEL_ID, demoSeedSteps, type SeedStep } from '../../lib/local/demo-seed';
import { completeFirstStart } from '../../lib/local/first-start';
import { authenticate } from '../../shared/auth/authenticate';
import { SCOPES } from '../../shared/auth/scopes';
import { loadCostSettings } from '../../shared/store/cost-settings-repository';
import { readSkuCosts as loadSkuCosts } from '../../shared/analytics/store/sku-costs';
import { listApiKeys } from '../../shared/store/api-key-repository';
import { readAdHours, readAds as listAds } from '../../shared/analytics/store/ad-facts';
import { readFxTable as loadFxTable } from '../../shared/analytics/store/fx-rates';
import { useFreshTable } from '../support/fresh-table';
import { DEMO_DEFAULTS, generateDemoFxRates } from '../../lib/local/demo-ads';
import { shapeAttribution } from '../../shared/attribution/attribution-engine';
import { runAttributionQuery } from '../../shared/attribution/attribution-service';
import { queryAttributionRequestSchema } from '../../shared/schemas/query-attribution';
import { readEvents } from '../../shared/store/event-repository';

beforeEach(async () => {
  await useFreshTable();
});

const printedKeys = (lines: string[]) => lines.flatMap((line) => /x-api-key:\s+(upstack_\S+)/.exec(line)?.[1] ?? []);
const activeDemoKeys = async () => (await listApiKeys(DEMO_PIXEL_ID)).filter((key) => !key.revokedAt);

describe('first start', () => {
  it('stores the demo pixel with ads, 90 days of hourly metrics up to the current hour, exchange rates, and prints a full-scope key once', async () => {
    const lines: string[] = [];
    const clock = new Date('2026-11-23T00:42:00Z');
    // The steps run with the clock the first start records; pinning it here pins the data.
    const steps = demoSeedSteps.map((step): SeedStep => ({ ...step, run: (pixelId) => step.run(pixelId, clock) }));
    expect(await completeFirstStart({ pixelId: DEMO_PIXEL_ID, steps, tableCreated: true, log: (line) => lines.push(line) })).toBe('completed');

    const [apiKey] = printedKeys(lines);
    expect(printedKeys(lines)).toHaveLength(1);
    const [key] = await activeDemoKeys();
    expect([...(key?.scopes ?? [])].sort()).toEqual([...SCOPES].sort());
    expect(key?.hint).toBe(apiKey!.slice(-4));

    const ads = await listAds('px_demo');
    expect(ads).toHaveLength(60);
    // Costs, so the demo's margins and cohorts show real figures.
    expect((await loadCostSettings('px_demo'))?.settings.defaultCogsPercent).toBe(40);
    expect((await loadSkuCosts('px_demo')).length).toBeGreaterThan(0);
    expect(new Set(ads.map((ad) => ad.platform))).toEqual(new Set(['meta', 'google', 'tiktok']));
    const lastHour = Date.parse('2026-11-23T00:00:00Z');
    const hours = [...(await readAdHours('px_demo', ads, { start: lastHour - 90 * 24 * 3_600_000, end: lastHour + 3_600_000 })).values()].flat().map((row) => row.hour);
    expect(Math.max(...hours)).toBe(lastHour);
    expect(Math.min(...hours)).toBe(lastHour - (90 * 24 - 1) * 3_600_000);
    const fx = await loadFxTable('px_demo');
    // Every day of the metrics has its own rates, the last one too.
    const generated = generateDemoFxRates({ ...DEMO_DEFAULTS, end: clock });
    expect(generated.at(-1)!.date).toBe('2026-11-23');
    expect(fx.rateOn('EUR', '2026-11-23')).toBe(generated.at(-1)!.rates.EUR);
    for (const ad of ads) expect(fx.convert(100, ad.currency, 'USD', '2026-10-01')).toBeGreaterThan(0);

    // The demo events are in the event store (as the events API would have stored them), and every
    // read model saw them: attribution by campaign shows ROAS per demo campaign.
    const stored = await readEvents('px_demo', new Date('2026-11-20T00:00:00Z'), new Date('2026-11-23T00:00:00Z'));
    expect(stored.length).toBeGreaterThan(300);
    expect(stored.some((event) => event.user?.anonymousId)).toBe(true);
    const request = queryAttributionRequestSchema.parse({
      pixelId: 'px_demo',
      dateRange: { start: '2026-10-01', end: '2026-10-31' },
      dimension: 'channel.campaign_id',
      attributionModel: ['first_click', 'last_click'],
      measures: ['attribution.orders', 'attribution.revenue', 'channel.spend', 'attribution.roas'],
    });
    const { spec, primary } = await runAttributionQuery('px_demo', request);
    const [firstClick] = shapeAttribution(spec, { dateRange: request.dateRange, compareDateRange: undefined }, primary, undefined).results;
    const campaigns = firstClick!.data.primary.filter((point) => point['channel.campaign_id'] !== null);
    expect(campaigns.length).toBeGreaterThanOrEqual(10);
    expect(campaigns.filter((point) => (point['attribution.roas'] as number) > 0).length).toBeGreaterThanOrEqual(8);
    expect(firstClick!.data.primary.find((point) => point['channel.campaign_id'] === null)!['attribution.orders']).toBeGreaterThan(0);

    // A later start finds it complete: no new key, nothing printed.
    const later: string[] = [];
    expect(await completeFirstStart({ pixelId: DEMO_PIXEL_ID, steps, tableCreated: false, log: (line) => later.push(line) })).toBe('done-before');
    expect(later).toEqual([]);
    expect(await activeDemoKeys()).toHaveLength(1);
  });

  it('redoes a first start interrupted at any step, says so, and ends with exactly one working demo key: the one printed last', async () => {
    const ran: string[] = [];
    const step = (name: string, failing = false): SeedStep => ({
      description: name,
      run: async () => {
        ran.push(name);
        if (failing) throw new Error('disk full');
      },
    });
    const lines: string[] = [];
    const log = (line: string) => lines.push(line);

    // Interrupted in its second step.
    await expect(completeFirstStart({ pixelId: DEMO_PIXEL_ID, steps: [step('rates'), step('ads', true)], tableCreated: true, log })).rejects.toThrow('disk full');
    expect(printedKeys(lines)).toEqual([]);

    // Redone in full on the next start.
    lines.length = 0;
    ran.length = 0;
    expect(await completeFirstStart({ pixelId: DEMO_PIXEL_ID, steps: [step('rates'), step('ads')], tableCreated: false, log })).toBe('redone');
    expect(ran).toEqual(['rates', 'ads']);
    expect(lines[0]).toMatch(/did not finish; redoing it/);
    const [printed] = printedKeys(lines);
    expect(await activeDemoKeys()).toHaveLength(1);
    expect(await authenticate({ 'x-api-key': printed!, 'x-pixel-id': DEMO_PIXEL_ID }, new Date())).toMatchObject({ pixelId: DEMO_PIXEL_ID });
  });

  it('revokes the demo key of a start interrupted after minting it, printed or not', async () => {
    const first: string[] = [];
    // Interrupted after the key was printed but before the start was marked complete: a completed
    // start with its mark taken away looks exactly like that.
    await completeFirstStart({ pixelId: DEMO_PIXEL_ID, steps: [], tableCreated: true, log: (line) => first.push(line) });
    const [firstKey] = printedKeys(first);
    await forgetCompletion();

    const second: string[] = [];
    expect(await completeFirstStart({ pixelId: DEMO_PIXEL_ID, steps: [], tableCreated: false, log: (line) => second.push(line) })).toBe('redone');
    const [secondKey] = printedKeys(second);
    expect(second.join('\n')).toMatch(/key is revoked/);
    expect(secondKey).not.toBe(firstKey);
    expect(await activeDemoKeys()).toHaveLength(1);
    await expect(authenticate({ 'x-api-key': firstKey!, 'x-pixel-id': DEMO_PIXEL_ID }, new Date())).rejects.toThrow();
    expect(await authenticate({ 'x-api-key': secondKey!, 'x-pixel-id': DEMO_PIXEL_ID }, new Date())).toMatchObject({ pixelId: DEMO_PIXEL_ID });
  });
});

async function forgetCompletion(): Promise<void> {
  const { documentClient, tableName } = await import('../../shared/store/dynamo-client');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  await documentClient.send(
    new UpdateCommand({ TableName: tableName(), Key: { PK: 'LOCAL#FIRST_START', SK: 'STATE' }, UpdateExpression: 'REMOVE completedAt' }),
  );
}
