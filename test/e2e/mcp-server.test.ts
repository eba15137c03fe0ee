import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MCP_TOOLS } from '../../lib/mcp/tools';
import { call, mintKey, startLocalServer, type RunningServer } from '../support/local-server';

/*
 * `npm run mcp` as an agent's client runs it: over stdio, driven by the SDK's own client, against
 * the local server.
 */

let server: RunningServer;
let demo: Record<string, string>;
let client: Client;

async function connect(env: Record<string, string>): Promise<Client> {
  const connected = new Client({ name: 'e2e', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: 'npm',
    args: ['run', '--silent', 'mcp'],
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env },
    stderr: 'pipe',
  });
  await connected.connect(transport);
  return connected;
}

const text = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as Array<{ type: string; text: string }>)[0]!.text;

beforeAll(async () => {
  server = await startLocalServer();
  const demoKey = /x-api-key:\s+(upstack_\S+)/.exec(server.output())?.[1]!;
  demo = { 'x-api-key': demoKey, 'x-pixel-id': 'px_demo' };
  client = await connect({ MERCHANT_API_URL: server.url, MERCHANT_API_KEY: demoKey, MERCHANT_PIXEL_ID: 'px_demo' });
}, 60_000);
afterAll(async () => {
  await client?.close();
  await server?.stop();
});

describe('npm run mcp', () => {
  it('lists one read-only tool per MCP_TOOLS entry, with the input schema of its route', async () => {
    const { tools } = await client.listTools();

    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(MCP_TOOLS).sort());
    for (const tool of tools) expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    const queryAds = tools.find((tool) => tool.name === 'query_ads')!;
    expect(queryAds.inputSchema.properties).toHaveProperty('limit');
    expect(queryAds.inputSchema.properties).not.toHaveProperty('pixelId');
    expect(tools.find((tool) => tool.name === 'get_dashboard_view')!.inputSchema.required).toEqual(['dashboardViewId']);
  });

  it('answers a tool with what the API answers the same request', async () => {
    const result = await client.callTool({ name: 'list_measures', arguments: { context: 'query_ads', search: 'spend' } });
    const direct = await call(server, 'GET', '/db-mgmt/api/measures?context=query_ads&search=spend', { headers: demo });

    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual(direct.body);
    expect(result.structuredContent).toEqual(direct.body);
  });

  it('queries ads with the configured pixel filled in', async () => {
    const result = await client.callTool({ name: 'query_ads', arguments: { limit: 2, measures: ['channel.spend'], dateRange: { start: '2026-01-01', end: '2026-01-31' } } });

    expect(result.isError).toBeFalsy();
    const body = JSON.parse(text(result));
    expect(body.rows.length).toBeLessThanOrEqual(2);
    expect(body.pagination).toMatchObject({ limit: 2, offset: 0 });
  });

  it('runs a query and reads the calling key', async () => {
    const query = await client.callTool({ name: 'query', arguments: { measures: ['orders.orders'], dateRange: { start: '2026-01-01', end: '2026-01-07' }, granularity: 'day' } });
    expect(query.isError, text(query)).toBeFalsy();
    expect(JSON.parse(text(query)).results[0].measureDetails[0].measure).toBe('orders.orders');

    const me = await client.callTool({ name: 'describe_api_key', arguments: {} });
    expect(JSON.parse(text(me)).apiKey).toMatchObject({ pixelId: 'px_demo' });
  });

  it('passes a 400 through readably: the status, the message and each located problem', async () => {
    const result = await client.callTool({ name: 'query', arguments: { measures: ['orders.nope'], dateRange: { start: '2026-01-01', end: '2026-01-07' } } });

    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^HTTP 400: Request validation failed\n- measures\.0: .*orders\.nope/);
  });

  it('passes a 404 through, and a 403 for a key without the scope', async () => {
    const missing = await client.callTool({ name: 'get_dashboard_view', arguments: { dashboardViewId: 'no-such-view' } });
    expect(missing.isError).toBe(true);
    expect(text(missing)).toMatch(/^HTTP 404/);

    const eventsOnly = await mintKey(server, 'px_demo', 'events:write');
    const limited = await connect({ MERCHANT_API_URL: server.url, MERCHANT_API_KEY: eventsOnly.apiKey, MERCHANT_PIXEL_ID: 'px_demo' });
    try {
      const forbidden = await limited.callTool({ name: 'list_filter_fields', arguments: {} });
      expect(forbidden.isError).toBe(true);
      expect(text(forbidden)).toBe("HTTP 403: This API key does not have the 'analytics:read' scope");
    } finally {
      await limited.close();
    }
  });
});
